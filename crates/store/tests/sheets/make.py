#!/usr/bin/env python3
"""Writes the workbooks the spreadsheet reader's tests read, with the
programs people's files come from rather than by hand: openpyxl 3.1.5 for
.xlsx, xlwt 1.3.0 for the old binary .xls, msoffcrypto-tool 5.4.2 to put
an .xlsx behind a password as Excel does (pip install openpyxl==3.1.5
xlwt==1.3.0 msoffcrypto-tool==5.4.2). Run from this folder; the files are kept in git, so the
tests need neither package.

harvest.*     two sheets with text, numbers, dates, a boolean, a '|' and a
              gap between cells, and an empty sheet between them
far-apart.*   two cells at the sheet's opposite corners: A1 and the last
              cell Excel allows (XFD1048576 in .xlsx, IV65536 in .xls)
protected.xlsx  harvest.xlsx encrypted with the password "garden"
damaged.xlsx  harvest.xlsx with its Harvest sheet's part cut short in its
              third row (a file cut off as it was copied or saved)
damaged-all.xlsx  far-apart.xlsx, its one sheet's part cut short likewise
ledger.xlsx   a sheet of 400 rows under one header row: its passages below
              the first name the columns (crates/knowledge's table_header)
"""
import datetime
import zipfile

import msoffcrypto.format.ooxml
import openpyxl
import xlwt

ROWS = [
    ["Crop", "Weight (kg)", "Picked", "Organic"],
    ["Pumpkins", 38, datetime.date(2026, 10, 3), True],
    ["Beans | runner", 4.25, datetime.datetime(2026, 8, 1, 7, 30), False],
]


def xlsx():
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Harvest"
    for row in ROWS:
        sheet.append(row)
    # Row 5, column C: a gap before it and an empty row above it.
    sheet["C5"] = "Water the squash at dusk"
    book.create_sheet("Empty")
    notes = book.create_sheet("Notes")
    notes["A1"] = "Seed order goes in by February"
    book.save("harvest.xlsx")

    far = openpyxl.Workbook()
    sheet = far.active
    sheet.title = "Far"
    sheet["A1"] = "first"
    sheet["XFD1048576"] = "last"
    far.save("far-apart.xlsx")


def xls():
    book = xlwt.Workbook()
    sheet = book.add_sheet("Harvest")
    day = xlwt.easyxf(num_format_str="YYYY-MM-DD")
    moment = xlwt.easyxf(num_format_str="YYYY-MM-DD HH:MM")
    for r, row in enumerate(ROWS):
        for c, value in enumerate(row):
            if isinstance(value, datetime.datetime):
                sheet.write(r, c, value, moment)
            elif isinstance(value, datetime.date):
                sheet.write(r, c, value, day)
            else:
                sheet.write(r, c, value)
    sheet.write(4, 2, "Water the squash at dusk")
    book.add_sheet("Empty")
    notes = book.add_sheet("Notes")
    notes.write(0, 0, "Seed order goes in by February")
    book.save("harvest.xls")

    far = xlwt.Workbook()
    sheet = far.add_sheet("Far")
    sheet.write(0, 0, "first")
    sheet.write(65535, 255, "last")
    far.save("far-apart.xls")


def ledger():
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Ledger"
    sheet.append(["Date", "Account", "Payee", "Amount (EUR)"])
    for n in range(1, 401):
        payee = "Hollowbrook Nursery" if n == 321 else f"Supplier {n % 17}"
        account = ["Seeds", "Tools", "Fuel", "Rent"][n % 4]
        sheet.append([datetime.date(2026, 1, 1) + datetime.timedelta(days=n % 365), account, payee, n * 1.5])
    book.save("ledger.xlsx")


def damaged(source, out, cut_at):
    """`source` with its first sheet's XML cut short after `cut_at`."""
    with zipfile.ZipFile(source) as book, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as copy:
        for name in book.namelist():
            part = book.read(name)
            if name == "xl/worksheets/sheet1.xml":
                part = part[: part.index(cut_at) + len(cut_at) + 20]
            copy.writestr(name, part)


def protected():
    with open("harvest.xlsx", "rb") as plain, open("protected.xlsx", "wb") as out:
        msoffcrypto.format.ooxml.OOXMLFile(plain).encrypt("garden", out)


if __name__ == "__main__":
    xlsx()
    xls()
    protected()
    ledger()
    damaged("harvest.xlsx", "damaged.xlsx", b'<row r="3">')
    damaged("far-apart.xlsx", "damaged-all.xlsx", b'<row r="1"')
