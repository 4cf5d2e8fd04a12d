/* deskhand's GNOME Shell extension (GNOME Shell 43/44).
 *
 * Exports dev.deskhand.Shell at /dev/deskhand/Shell on the session bus:
 *   Windows()              JSON: every normal window with pid, wm_class, app id, title, frame and
 *                          buffer rects, focus, stacking (bottom to top), minimized.
 *   Activate(id)           raise and focus the window (the overview is closed first).
 *   MoveResize(id, x, y, w, h)   the window's frame rect (unmaximized first).
 *   Capture(id)            the window's own pixels (its actor, covered or not) as PNG bytes, and
 *                          the frame rect inside the image as JSON.
 *   CaptureArea(x, y, w, h)   what the screen shows in that rect (global logical pixels; a width of 0:
 *                          the whole screen) as PNG bytes, through the shell's own screenshot
 *                          (org.gnome.Shell.Screenshot refuses callers not on its allow-list).
 *   CommitText(id, text)   commit text through the shell's input method (text-input-v3) to the
 *                          focused window, only when it is window `id` and has a text-input focus.
 *   Frame()                returns after the stage's next frame: pointer events queued before it
 *                          have then been handed to the clients (Clutter processes them per frame).
 *   HideOverview()         close the overview (GNOME starts in it); also done at startup.
 *   Marks()                how often the shell has consumed the marker key (XF86Launch9, grabbed as an
 *                          accelerator): a client sends it after a burst of input through the same
 *                          path, and once the count moves every event before it has been handed
 *                          to the clients (Mutter handles input in order; the marker never reaches
 *                          an app).
 * It holds one virtual keyboard and one virtual pointer for its lifetime, so the seat of a
 * headless shell has both capabilities and clients bind them before the first input arrives.
 */
const { Clutter, Gio, GLib, Meta, Shell } = imports.gi;
const Main = imports.ui.main;

const MARKER = 'XF86Launch9';
const marks = { count: 0 };

const VERSION = 1;
const IFACE = `<node>
  <interface name="dev.deskhand.Shell">
    <method name="Windows"><arg type="s" direction="out" name="json"/></method>
    <method name="Activate"><arg type="t" direction="in" name="id"/><arg type="b" direction="out" name="found"/></method>
    <method name="MoveResize"><arg type="t" direction="in" name="id"/>
      <arg type="i" direction="in" name="x"/><arg type="i" direction="in" name="y"/>
      <arg type="i" direction="in" name="width"/><arg type="i" direction="in" name="height"/>
      <arg type="b" direction="out" name="found"/></method>
    <method name="Capture"><arg type="t" direction="in" name="id"/>
      <arg type="s" direction="out" name="json"/><arg type="ay" direction="out" name="png"/></method>
    <method name="CaptureArea"><arg type="i" direction="in" name="x"/><arg type="i" direction="in" name="y"/>
      <arg type="i" direction="in" name="width"/><arg type="i" direction="in" name="height"/>
      <arg type="ay" direction="out" name="png"/></method>
    <method name="CommitText"><arg type="t" direction="in" name="id"/><arg type="s" direction="in" name="text"/>
      <arg type="b" direction="out" name="committed"/></method>
    <method name="HideOverview"><arg type="b" direction="out" name="visible"/></method>
    <method name="Marks"><arg type="u" direction="out" name="count"/></method>
    <method name="Frame"/>
    <property name="Version" type="u" access="read"/>
  </interface>
</node>`;

function rect(r) {
    return [r.x, r.y, r.width, r.height];
}

function metaWindows() {
    return global.get_window_actors().map(a => a.get_meta_window())
        .filter(w => w && !w.is_override_redirect());
}

function byId(id) {
    return metaWindows().find(w => w.get_id() === id) || null;
}

// Windows Mutter has shown (placed): a new window can move once between mapping and showing.
const shown = new WeakSet();

function track(w) {
    if (w.get_compositor_private()?.visible && !w.minimized)
        shown.add(w);
    else
        w.connect('shown', () => shown.add(w));
}

function describe(w, z, focus) {
    const parent = w.get_transient_for();
    return {
        id: w.get_id(),
        pid: w.get_pid(),
        wm_class: w.get_wm_class() || '',
        app_id: w.get_gtk_application_id() || w.get_sandboxed_app_id() || '',
        title: w.get_title() || '',
        frame: rect(w.get_frame_rect()),
        buffer: rect(w.get_buffer_rect()),
        focused: w === focus,
        minimized: w.minimized,
        showing: w.showing_on_its_workspace() && shown.has(w),
        stacking: z,
        type: w.get_window_type(),
        wayland: w.get_client_type() === Meta.WindowClientType.WAYLAND,
        transient_for: parent ? parent.get_id() : 0,
    };
}

class Service {
    Windows() {
        const focus = global.display.get_focus_window();
        const sorted = global.display.sort_windows_by_stacking(metaWindows());
        return JSON.stringify(sorted.map((w, z) => describe(w, z, focus)));
    }

    Activate(id) {
        const w = byId(id);
        if (!w)
            return false;
        if (Main.overview.visible)
            Main.overview.hide();
        if (w.minimized)
            w.unminimize();
        w.activate(global.display.get_current_time_roundtrip());
        return true;
    }

    MoveResize(id, x, y, width, height) {
        const w = byId(id);
        if (!w)
            return false;
        if (w.get_maximized())
            w.unmaximize(Meta.MaximizeFlags.BOTH);
        w.move_frame(true, x, y);
        w.move_resize_frame(true, x, y, width, height);
        return true;
    }

    Capture(id) {
        const w = byId(id);
        if (!w)
            throw new Error(`no window ${id}`);
        const actor = w.get_compositor_private();
        const frame = w.get_frame_rect();
        const buffer = w.get_buffer_rect();
        const image = actor ? actor.get_image(null) : null;
        if (!image)
            throw new Error(`window ${id} has no image (not mapped yet)`);
        const [fd, path] = GLib.file_open_tmp('deskhand-XXXXXX.png');
        GLib.close(fd);
        try {
            image.writeToPNG(path);
            const [, data] = GLib.file_get_contents(path);
            const meta = {
                frame: rect(frame), buffer: rect(buffer),
                width: image.getWidth(), height: image.getHeight(),
            };
            return [JSON.stringify(meta), data];
        } finally {
            GLib.unlink(path);
        }
    }

    CaptureAreaAsync([x, y, width, height], invocation) {
        const stream = Gio.MemoryOutputStream.new_resizable();
        const shooter = new Shell.Screenshot();
        const done = (_shooter, result) => {
            try {
                if (width > 0)
                    shooter.screenshot_area_finish(result);
                else
                    shooter.screenshot_finish(result);
                stream.close(null);
                const png = stream.steal_as_bytes().toArray();
                invocation.return_value(new GLib.Variant('(ay)', [png]));
            } catch (e) {
                invocation.return_error_literal(Gio.DBusError, Gio.DBusError.FAILED, `${e}`);
            }
        };
        if (width > 0)
            shooter.screenshot_area(x, y, width, height, stream, done);
        else
            shooter.screenshot(false, stream, done);
    }

    CommitText(id, text) {
        const focus = global.display.get_focus_window();
        if (!focus || focus.get_id() !== id || !Main.inputMethod.currentFocus)
            return false;
        Main.inputMethod.commit(text);
        return true;
    }

    HideOverview() {
        Main.overview.hide();
        return Main.overview.visible;
    }

    Marks() {
        return marks.count;
    }

    FrameAsync(_params, invocation) {
        const id = global.stage.connect('after-paint', () => {
            global.stage.disconnect(id);
            invocation.return_value(null);
        });
        global.stage.queue_redraw();
    }

    get Version() {
        return VERSION;
    }
}

class Extension {
    enable() {
        const seat = Clutter.get_default_backend().get_default_seat();
        this._devices = [Clutter.InputDeviceType.KEYBOARD_DEVICE, Clutter.InputDeviceType.POINTER_DEVICE]
            .map(type => seat.create_virtual_device(type));
        this._marker = global.display.grab_accelerator(MARKER, Meta.KeyBindingFlags.NONE);
        if (this._marker !== Meta.KeyBindingAction.NONE) {
            Main.wm.allowKeybinding(Meta.external_binding_name_for_action(this._marker), Shell.ActionMode.ALL);
            this._activated = global.display.connect('accelerator-activated', (_display, action) => {
                if (action === this._marker)
                    marks.count++;
            });
        }
        metaWindows().forEach(track);
        this._created = global.display.connect('window-created', (_display, w) => track(w));
        this._service = Gio.DBusExportedObject.wrapJSObject(IFACE, new Service());
        this._service.export(Gio.DBus.session, '/dev/deskhand/Shell');
        this._owner = Gio.bus_own_name_on_connection(Gio.DBus.session, 'dev.deskhand.Shell',
            Gio.BusNameOwnerFlags.NONE, null, null);
        if (Main.layoutManager._startingUp)
            this._startup = Main.layoutManager.connect('startup-complete', () => Main.overview.hide());
        else
            Main.overview.hide();
    }

    disable() {
        if (this._startup)
            Main.layoutManager.disconnect(this._startup);
        this._startup = 0;
        global.display.disconnect(this._created);
        if (this._activated)
            global.display.disconnect(this._activated);
        if (this._marker)
            global.display.ungrab_accelerator(this._marker);
        Gio.bus_unown_name(this._owner);
        this._service.unexport();
        this._service = null;
        this._devices = null;
    }
}

function init() {
    return new Extension();
}
