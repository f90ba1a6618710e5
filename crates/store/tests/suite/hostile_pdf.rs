//! A crafted PDF cannot take the app down (security review N3): each of the
//! review's three files, built here, is read by the bounded reader in a
//! process of its own, which they end (a stack overflow, the CPU limit, the
//! memory limit); this process goes on, the file is named as unreadable,
//! and the next PDF attaches. Lower limits than the app's (256 MB, 2 s of
//! CPU) keep the bombs cheap; what is checked is that the limit holds.

use std::io::Write;

use hearth_core::AttachmentKind;
use hearth_store::Store;

/// A PDF of `objects` (object 1 the catalog), with a correct
/// cross-reference table (the attachments suite builds its PDFs with it).
pub(crate) fn pdf_of(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n", i + 1).bytes());
        out.extend(o);
        out.extend(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for o in offsets {
        out.extend(format!("{o:010} 00000 n \n").bytes());
    }
    out.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .bytes(),
    );
    out
}

fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut o = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    o.extend(data);
    o.extend(b"\nendstream");
    o
}

const FONT: &str = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";

/// Catalog, pages, a page whose content is `content` with the form
/// XObjects 5.. as its resources (`forms` of them), and the font (object 4).
fn page_with(content: &[u8], forms: usize, extra: Vec<Vec<u8>>) -> Vec<u8> {
    let xobjects: String = (0..forms)
        .map(|i| format!("/X{i} {} 0 R ", i + 6))
        .collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 5 0 R \
             /Resources << /Font << /F1 4 0 R >> /XObject << {xobjects}>> >> >>"
        )
        .into_bytes(),
        FONT.as_bytes().to_vec(),
        stream("", content),
    ];
    objects.extend(extra);
    pdf_of(&objects)
}

/// A form XObject drawing `content`, with every form as its resources.
fn form(content: &str, forms: usize) -> Vec<u8> {
    let xobjects: String = (0..forms)
        .map(|i| format!("/X{i} {} 0 R ", i + 6))
        .collect();
    stream(
        &format!(
            "/Type /XObject /Subtype /Form /BBox [0 0 300 144] \
             /Resources << /Font << /F1 4 0 R >> /XObject << {xobjects}>> >>"
        ),
        content.as_bytes(),
    )
}

/// One that reads: the store still attaches PDFs after a bomb.
fn plain() -> Vec<u8> {
    page_with(b"BT /F1 14 Tf 20 120 Td (Still readable.) Tj ET", 0, vec![])
}

async fn refused_then_readable(name: &str, bomb: Vec<u8>) {
    hearth_store::set_reader(env!("CARGO_BIN_EXE_hearth-reader"));
    hearth_store::set_reader_limits(256 << 20, 2);
    let dir = tempfile::tempdir().unwrap();
    let (store, _) = Store::open(dir.path().join("h.sqlite")).await.unwrap();
    let e = store.add_file(name, bomb).await.unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("cannot attach {name}: its text cannot be read")),
        "{e}"
    );
    assert!(e.contains("the PDF reader"), "{e}");
    let ok = store.add_file("plain.pdf", plain()).await.unwrap();
    assert_eq!(ok.kind, AttachmentKind::Text);
    let text = String::from_utf8(ok.body.unwrap().0.to_vec()).unwrap();
    assert!(text.contains("Still readable."), "{text:?}");
}

#[tokio::test]
async fn a_form_that_draws_itself_ends_only_the_reader() {
    // 803 bytes that overflowed the app's stack and aborted it.
    let bomb = page_with(b"/X0 Do", 1, vec![form("/X0 Do", 1)]);
    refused_then_readable("self.pdf", bomb).await;
}

#[tokio::test]
async fn forms_drawing_the_next_twice_forty_deep_end_at_the_cpu_limit() {
    // 2^40 draws: it spun past two minutes in the app.
    let depth = 40;
    let forms: Vec<Vec<u8>> = (0..depth)
        .map(|i| {
            if i + 1 < depth {
                form(&format!("/X{n} Do /X{n} Do", n = i + 1), depth)
            } else {
                form("BT /F1 8 Tf (deep) Tj ET", depth)
            }
        })
        .collect();
    let bomb = page_with(b"/X0 Do", depth, forms);
    refused_then_readable("nested.pdf", bomb).await;
}

#[tokio::test]
async fn a_stream_that_inflates_past_the_memory_limit_ends_only_the_reader() {
    // A page stream of 512 MiB of spaces, 0.5 MB compressed (the review's
    // was 8 GiB in 8 MB, against the app's 1 GiB).
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let block = vec![b' '; 1 << 20];
    for _ in 0..512 {
        z.write_all(&block).unwrap();
    }
    let data = z.finish().unwrap();
    let bomb = pdf_of(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 5 0 R \
          /Resources << /Font << /F1 4 0 R >> >> >>"
            .to_vec(),
        FONT.as_bytes().to_vec(),
        stream("/Filter /FlateDecode", &data),
    ]);
    refused_then_readable("bomb.pdf", bomb).await;
}
