#!/usr/bin/python3
"""A desktop notification server for the e2e tests.

It owns org.freedesktop.Notifications on the bus at
$DBUS_SESSION_BUS_ADDRESS and prints every call it gets as a JSON line
on stdout (`{"call": "Notify", "id": 1, "app": ..., "summary": ...}`).
A line `click ID` on stdin does what a real server does when the person
clicks notification ID: the `ActionInvoked` signal with the action
`default`, then `NotificationClosed` (reason 2, dismissed). A closed or
replaced notification is reported with `NotificationClosed` as the
specification says (reason 3 for `CloseNotification`).

Run with Debian's python3 (python3-gi): GLib's D-Bus, no PyPI package.
"""

import json
import os

from gi.repository import Gio, GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
XML = f"""
<node>
  <interface name="{NAME}">
    <method name="Notify">
      <arg type="s" direction="in"/><arg type="u" direction="in"/>
      <arg type="s" direction="in"/><arg type="s" direction="in"/>
      <arg type="s" direction="in"/><arg type="as" direction="in"/>
      <arg type="a{{sv}}" direction="in"/><arg type="i" direction="in"/>
      <arg type="u" direction="out"/>
    </method>
    <method name="CloseNotification"><arg type="u" direction="in"/></method>
    <method name="GetCapabilities"><arg type="as" direction="out"/></method>
    <method name="GetServerInformation">
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
      <arg type="s" direction="out"/><arg type="s" direction="out"/>
    </method>
    <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
    <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
  </interface>
</node>
"""

shown = set()
next_id = 0
bus = None


def say(**fields):
    print(json.dumps(fields), flush=True)


def signal(member, args):
    bus.emit_signal(None, PATH, NAME, member, args)


def closed(nid, reason):
    if nid in shown:
        shown.discard(nid)
        signal("NotificationClosed", GLib.Variant("(uu)", (nid, reason)))


def on_call(_conn, sender, _path, _iface, method, params, invocation):
    global next_id
    if method == "Notify":
        app, replaces, _icon, summary, body, actions, _hints, _timeout = params.unpack()
        if replaces and replaces in shown:
            nid = replaces
        else:
            next_id += 1
            nid = next_id
        shown.add(nid)
        say(call="Notify", id=nid, app=app, summary=summary, body=body, actions=actions, sender=sender)
        invocation.return_value(GLib.Variant("(u)", (nid,)))
    elif method == "CloseNotification":
        (nid,) = params.unpack()
        say(call="CloseNotification", id=nid)
        closed(nid, 3)
        invocation.return_value(None)
    elif method == "GetCapabilities":
        invocation.return_value(GLib.Variant("(as)", (["actions", "body"],)))
    elif method == "GetServerInformation":
        invocation.return_value(GLib.Variant("(ssss)", ("hearth-e2e", "hearth", "1", "1.2")))


pending = b""


def on_input(_channel, _condition):
    # Raw reads, whole lines: a buffered readline could hold a second line
    # until more input came.
    global pending
    chunk = os.read(0, 4096)
    if not chunk:
        loop.quit()
        return False
    pending += chunk
    *lines, pending = pending.split(b"\n")
    for line in lines:
        command(line.decode())
    return True


def command(line):
    words = line.split()
    if len(words) == 2 and words[0] == "click":
        nid = int(words[1])
        if nid in shown:
            signal("ActionInvoked", GLib.Variant("(us)", (nid, "default")))
            closed(nid, 2)
            say(event="clicked", id=nid)
        else:
            say(event="not shown", id=nid)


def on_bus(connection, _name):
    global bus
    bus = connection
    node = Gio.DBusNodeInfo.new_for_xml(XML)
    connection.register_object(PATH, node.interfaces[0], on_call, None, None)


loop = GLib.MainLoop()
Gio.bus_own_name(
    Gio.BusType.SESSION,
    NAME,
    Gio.BusNameOwnerFlags.NONE,
    on_bus,
    lambda *_: say(event="ready"),
    lambda *_: (say(event="name lost"), loop.quit()),
)
GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.PRIORITY_DEFAULT, GLib.IOCondition.IN | GLib.IOCondition.HUP, on_input)
loop.run()
