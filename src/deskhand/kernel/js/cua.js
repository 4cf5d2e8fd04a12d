// deskhand js kernel: the `cua` facade and `nodeRepl` (native-contract.md section 2).
//
// The worker evaluates this file as the body of a strict function that receives the
// JSON-only bridge: __cuInvoke(name, args) -> thenable result, __cuEmit(content),
// __cuTrack(promise) -> thenable whose unobserved failure fails the cell, and __cuTarget,
// the platform name the host reports ('linux', 'mac').
const HANDLE = /^g(0|[1-9]\d*):(0|[1-9]\d*)$/u;
const LINE = /^[+~]?[\t ]*(g(0|[1-9]\d*):(0|[1-9]\d*))(?=\s|$)/u;
const DIFF_HEADER = "The following is a diff from the previous accessibility tree ";
const NO_CHANGE = "There has been no change in the accessibility tree ";
const REMOVED = "Removed element IDs: ";
const SKY = "SkyComputerUseError";
// Base64 in the engine (ES2026 Uint8Array base64, native in quickjs-ng), taken before any cell runs.
const fromBase64 = Uint8Array.fromBase64;
const toBase64 = Uint8Array.prototype.toBase64;
const GUIDANCE = `Native App API
Bind with await cua.getApp("App name, app id, or path"). Keep the returned app between cells.
Observe: app.getAXState({disableDiffing?,emit?}), app.getScreenshot({emit?}), app.getAXStateAndScreenshot({disableDiffing?,emit?}). emit:false returns data without displaying it.
Act: app.click([x,y] or element,{mouseButton?,clickCount?}), app.drag([x,y],[x,y]), app.pressKey(key), app.scroll([x,y] or element,direction,pages?), app.paste(text,{format?}), app.typeText(text), app.selectText(element,text,{prefix?,suffix?,selectionType?}), app.setValue(element,value), app.performSecondaryAction(element,action).
The raw window API is also available as cua.computer (target:"${__cuTarget}"): list_apps(), get_app_state({app,disableDiff?}), and the snake_case action methods with an explicit app. Raw methods return data without displaying it.
Use observed gN:id handles. Integer indices need a current AX observation; after an image-only capture call getAXState({disableDiffing:true}) before using integers. Coordinates refer to the returned screenshot.
Await every action; loop, then observe at the next decision point. nodeRepl.write(value) emits text; await nodeRepl.emitImage(bytes) emits an image. Browser DOM, imports, Node, filesystem and network APIs are unavailable.`;

const indicesByApp = new Map();
const aliases = new Map();
let guidanceShown = false;

function tracked(fn) {
  return function (...args) {
    return __cuTrack(fn.apply(undefined, args));
  };
}

function textOf(result) {
  const blocks = Array.isArray(result.content) ? result.content : [];
  return blocks.filter((b) => b && b.type === "text" && typeof b.text === "string").map((b) => b.text).join("\n");
}

function imageOf(result) {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const block = blocks.find((b) => b && b.type === "image");
  return block && typeof block.data === "string" && typeof block.mimeType === "string"
    ? { data: block.data, mimeType: block.mimeType }
    : undefined;
}

function rebuildError(method, result) {
  const meta = result.nativeError !== null && typeof result.nativeError === "object" ? result.nativeError : undefined;
  const text = meta !== undefined && typeof meta.message === "string" ? meta.message : textOf(result) || `Computer Use ${method} failed`;
  const error = meta !== undefined && meta.name === "TypeError" ? new TypeError(text) : new Error(text);
  if (meta !== undefined && meta.name === SKY) {
    error.name = SKY;
    if (Number.isInteger(meta.code)) error.code = meta.code;
    if (typeof meta.errorName === "string") error.errorName = meta.errorName;
    error.request = null;
    error.requestType = "jsonRPC";
  }
  if (meta !== undefined && typeof meta.nativeCode === "string") error.nativeCode = meta.nativeCode;
  return error;
}

async function invoke(method, args) {
  const result = await __cuInvoke(method, args);
  if (result !== null && typeof result === "object" && result.isError === true) throw rebuildError(method, result);
  return result;
}

function decodeImage(image) {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/u.test(image.data)) {
    throw new Error("The screenshot contains invalid base64 data");
  }
  // The engine's own decoder: a byte loop in the interpreter took 0.5 s for a 130 KB screenshot.
  return fromBase64(image.data);
}

function encodeBytes(bytes) {
  return toBase64.call(bytes);
}

function clear(indices) {
  indices.generation = undefined;
  indices.handles.clear();
}

function indicesFor(selector) {
  const app = aliases.get(selector) ?? selector;
  let indices = indicesByApp.get(app);
  if (indices === undefined) {
    indices = { generation: undefined, handles: new Map() };
    indicesByApp.set(app, indices);
  }
  return indices;
}

// Section 3.5: integer indices follow full trees, diffs, removals and generations.
function remember(indices, text) {
  const start = text.indexOf("<app_state>\n");
  const end = text.lastIndexOf("\n</app_state>");
  const lines = (start >= 0 && end > start ? text.slice(start + 12, end) : text).split("\n");
  if (!lines.some((line) => line.startsWith(DIFF_HEADER) || line.startsWith(NO_CHANGE))) clear(indices);
  for (const line of lines) {
    const match = LINE.exec(line);
    if (match === null) continue;
    const id = Number(match[3]);
    if (!Number.isSafeInteger(id)) continue;
    if (indices.generation !== match[2]) {
      clear(indices);
      indices.generation = match[2];
    }
    indices.handles.set(id, match[1]);
  }
  for (const line of lines) {
    if (!line.startsWith(REMOVED)) continue;
    for (const range of line.slice(REMOVED.length).split(", ")) {
      const match = /^(\d+)(?:-(\d+))?$/u.exec(range);
      if (match === null) continue;
      const low = Number(match[1]);
      const high = Number(match[2] ?? match[1]);
      for (const id of [...indices.handles.keys()]) if (id >= low && id <= high) indices.handles.delete(id);
    }
  }
}

function element(indices, target) {
  if (typeof target === "string" && HANDLE.test(target)) return target;
  if (typeof target === "number" && Number.isSafeInteger(target) && target >= 0) {
    const handle = indices.handles.get(target);
    if (handle !== undefined) return handle;
    throw new Error(`Element ${target} has no current observed handle. Call getAXState({disableDiffing:true}) before using an integer index.`);
  }
  throw new Error("Expected an observed integer element index or an opaque gN:id handle");
}

function point(value, name) {
  if (!Array.isArray(value) || !Number.isFinite(value[0]) || !Number.isFinite(value[1])) {
    throw new TypeError(`${name} must include finite x and y coordinates`);
  }
  return [value[0], value[1]];
}

function targetArgs(indices, target) {
  if (Array.isArray(target)) {
    const [x, y] = point(target, "coordinate");
    return { x, y };
  }
  return { element_index: element(indices, target) };
}

function mouseButton(value) {
  if (value === undefined) return undefined;
  const v = typeof value === "string" ? value.trim().toLowerCase() : value;
  if (v === 0 || v === "left" || v === "l") return "left";
  if (v === 1 || v === "right" || v === "r") return "right";
  if (v === 2 || v === "middle" || v === "m") return "middle";
  throw new TypeError(typeof value === "number"
    ? "mouseButton number must be 0, 1, or 2"
    : "mouseButton must be left, right, middle, l, r, m, 0, 1, or 2");
}

function direction(value) {
  const v = String(value).trim().toLowerCase();
  const names = { u: "up", up: "up", d: "down", down: "down", l: "left", left: "left", r: "right", right: "right" };
  if (Object.hasOwn(names, v)) return names[v];
  throw new TypeError("direction must be up, down, left, or right");
}

function checkPages(pages) {
  if (pages !== undefined && (typeof pages !== "number" || !Number.isFinite(pages) || pages <= 0)) {
    throw new TypeError("pages must be a finite number > 0");
  }
}

function optional(name, value) {
  return value === undefined ? {} : { [name]: value };
}

function emitText(text, options) {
  if (options === undefined || options === null || options.emit !== false) __cuEmit({ type: "text", text });
}

function emitImage(image, options) {
  if (options === undefined || options === null || options.emit !== false) {
    __cuEmit({ type: "image", data: image.data, mimeType: image.mimeType });
  }
}

function emitSelection(text, options) {
  if (options !== undefined && options !== null && options.emit === false) return;
  const prefix = guidanceShown ? "" : GUIDANCE + "\n\n";
  guidanceShown = true;
  emitText(prefix + text);
}

async function listApps(options) {
  const result = await invoke("list_apps", {});
  const apps = Array.isArray(result.apps) ? result.apps : textOf(result).split("\n").flatMap((line) => {
    const at = line.lastIndexOf(" — ");
    if (at < 0) return [];
    const id = line.slice(at + 3);
    return id ? [{ id, displayName: line.slice(0, at), isRunning: true }] : [];
  });
  emitText(JSON.stringify(apps), options);
  return apps;
}

async function getState(options) {
  const state = { apps: await listApps({ emit: false }), browsers: [] };
  emitSelection(JSON.stringify(state), options);
  return state;
}

function actionResult(result) {
  const value = result !== null && typeof result === "object" ? result.result : undefined;
  return value !== null && typeof value === "object" ? value : { effect: "unverifiable" };
}

function makeApp(app, observed) {
  // only: "image" (getScreenshot) or "text" (getAXState: no screenshot is taken), else both.
  async function observe(options, only) {
    try {
      const disable = options !== undefined && options !== null ? options.disableDiffing : undefined;
      const wait = options !== undefined && options !== null ? options.waitForChangeMs : undefined;
      const image = only === "image" ? true : undefined;
      const text = only === "text" ? true : undefined;
      return await invoke("get_app_state", { app, ...optional("disableDiff", disable), ...optional("waitForChangeMs", wait), ...optional("imageOnly", image), ...optional("textOnly", text) });
    } catch (error) {
      clear(observed);
      throw error;
    }
  }
  // App methods resolve to what the action did: {effect, route, evidence?, ...measured} (a deskhand
  // addition to seed 1, in seed 2's vocabulary); the raw cua.computer.* methods keep resolving to undefined.
  const act = (method, args) => invoke(method, { app, ...args }).then(actionResult);
  return Object.freeze({
    getAXState: tracked(async (options) => {
      const text = textOf(await observe(options, "text"));
      remember(observed, text);
      emitText(text, options);
      return text;
    }),
    getScreenshot: tracked(async (options) => {
      // Clear first: a hidden AX refresh may change generations (image-only refresh).
      for (const [name, indices] of indicesByApp) if (name === app) clear(indices);
      const image = imageOf(await observe({ waitForChangeMs: options?.waitForChangeMs }, "image"));
      if (image === undefined) throw new Error(`Screenshot unavailable for ${app}.`);
      const bytes = decodeImage(image);
      emitImage(image, options);
      return bytes;
    }),
    getAXStateAndScreenshot: tracked(async (options) => {
      const result = await observe(options);
      const state = textOf(result);
      remember(observed, state);
      emitText(state, options);
      const image = imageOf(result);
      if (image === undefined) return { state };
      const screenshot = decodeImage(image);
      emitImage(image, options);
      return { state, screenshot };
    }),
    click: tracked(async (target, options) => {
      const button = mouseButton(options?.mouseButton);
      return act("click", { ...targetArgs(observed, target), ...optional("mouse_button", button), ...optional("click_count", options?.clickCount) });
    }),
    drag: tracked(async (from, to) => {
      const [from_x, from_y] = point(from, "from");
      const [to_x, to_y] = point(to, "to");
      return act("drag", { from_x, from_y, to_x, to_y });
    }),
    pressKey: tracked(async (key) => {
      if (typeof key !== "string" || key.trim() === "") throw new TypeError("key is required");
      return act("press_key", { key });
    }),
    scroll: tracked(async (target, dir, pages) => {
      checkPages(pages);
      return act("scroll", { ...targetArgs(observed, target), direction: direction(dir), ...optional("pages", pages) });
    }),
    paste: tracked(async (text, options) => act("paste", { text, format: options?.format ?? "text" })),
    typeText: tracked(async (text) => act("type_text", { text })),
    selectText: tracked(async (index, text, options) => {
      return act("select_text", {
        element_index: element(observed, index), text, ...optional("prefix", options?.prefix),
        ...optional("suffix", options?.suffix), ...optional("selection_type", options?.selectionType),
      });
    }),
    setValue: tracked(async (index, value) => act("set_value", { element_index: element(observed, index), value })),
    performSecondaryAction: tracked(async (index, action) => {
      return act("perform_secondary_action", { element_index: element(observed, index), action });
    }),
  });
}

async function getApp(selector) {
  // An addition to the contract: a positive integer is a pid, as the digits string is.
  if (typeof selector === "number") {
    if (!Number.isSafeInteger(selector) || selector <= 0) {
      throw new TypeError(`getApp(${selector}): a pid is a positive integer`);
    }
    selector = String(selector);
  }
  if (typeof selector !== "string" || selector.trim() === "") {
    throw new Error("getApp requires an explicit app name, bundle ID, or path");
  }
  const first = await invoke("get_app_state", { app: selector, disableDiff: true, textOnly: true });
  const app = typeof first.app === "string" && first.app ? first.app : selector;
  aliases.set(selector, app);
  const observed = indicesFor(app);
  const text = textOf(first);
  remember(observed, text);
  emitSelection(text, undefined);
  return makeApp(app, observed);
}

function requireApp(input) {
  if (input === null || typeof input !== "object" || typeof input.app !== "string" || input.app.trim() === "") {
    throw new TypeError("app is required");
  }
}

async function nativeAction(method, input) {
  requireApp(input);
  const args = { ...input };
  if (args.element_index !== undefined) args.element_index = element(indicesFor(input.app), args.element_index);
  await invoke(method, args);
}

function nativePoint(input) {
  if (input.element_index !== undefined) return { element_index: input.element_index };
  const [x, y] = point([input.x, input.y], "coordinate");
  return { x, y };
}

const computer = Object.freeze({
  target: __cuTarget,
  list_apps: tracked(() => listApps({ emit: false })),
  list_windows: tracked(async (input) => {  // an addition (seed 2's exact-window workflow)
    const result = await invoke("list_windows", input?.pid === undefined ? {} : { pid: input.pid });
    return Array.isArray(result.windows) ? result.windows : [];
  }),
  get_app_state: tracked(async (input) => {
    requireApp(input);
    let result;
    try {
      result = await invoke("get_app_state", { app: input.app, ...optional("disableDiff", input.disableDiff) });
    } catch (error) {
      clear(indicesFor(input.app));
      throw error;
    }
    const app = typeof result.app === "string" && result.app ? result.app : input.app;
    aliases.set(input.app, app);
    const text = textOf(result);
    remember(indicesFor(app), text);
    const image = imageOf(result);
    return { app, text, screenshot: image ? { url: `data:${image.mimeType};base64,${image.data}` } : null };
  }),
  click: tracked(async (input) => {
    requireApp(input);
    await nativeAction("click", {
      app: input.app, ...nativePoint(input), ...optional("mouse_button", mouseButton(input.mouse_button)),
      ...optional("click_count", input.click_count),
    });
  }),
  drag: tracked(async (input) => {
    requireApp(input);
    point([input.from_x, input.from_y], "from");
    point([input.to_x, input.to_y], "to");
    await nativeAction("drag", { app: input.app, from_x: input.from_x, from_y: input.from_y, to_x: input.to_x, to_y: input.to_y });
  }),
  paste: tracked(async (input) => { await nativeAction("paste", { app: input?.app, text: input?.text, format: input?.format }); }),
  perform_secondary_action: tracked(async (input) => {
    await nativeAction("perform_secondary_action", { app: input?.app, element_index: input?.element_index, action: input?.action });
  }),
  press_key: tracked(async (input) => {
    requireApp(input);
    if (typeof input.key !== "string" || input.key.trim() === "") throw new TypeError("key is required");
    await nativeAction("press_key", { app: input.app, key: input.key });
  }),
  scroll: tracked(async (input) => {
    requireApp(input);
    checkPages(input.pages);
    await nativeAction("scroll", { app: input.app, ...nativePoint(input), direction: direction(input.direction), ...optional("pages", input.pages) });
  }),
  select_text: tracked(async (input) => {
    await nativeAction("select_text", {
      app: input?.app, element_index: input?.element_index, text: input?.text, ...optional("prefix", input?.prefix),
      ...optional("suffix", input?.suffix), ...optional("selection_type", input?.selection_type),
    });
  }),
  set_value: tracked(async (input) => {
    await nativeAction("set_value", { app: input?.app, element_index: input?.element_index, value: input?.value });
  }),
  type_text: tracked(async (input) => { await nativeAction("type_text", { app: input?.app, text: input?.text }); }),
});

// --- The exact-window workflow of seed 2: a deskhand addition (the seed-1 surface above is unchanged).
// A window is {pid, windowId} from listWindows(). Each Window method first checks, before dispatch,
// that the window still exists and is its app's key window (the one observed and acted on); the
// backend refuses coordinates after another window became key, so no event reaches another window.
function windowError(code, message) {
  const error = new Error(message);
  error.code = code;
  error.dispatched = false;
  return error;
}

function exactAddress(input) {
  const pid = input?.pid;
  const windowId = input?.windowId;
  if (!Number.isSafeInteger(pid) || pid < 1 || pid > 4294967295) throw new TypeError("pid must be an integer from 1 to 4294967295");
  if (!Number.isSafeInteger(windowId) || windowId < 1) throw new TypeError("windowId must be a positive safe integer");
  return { pid, windowId };
}

// Like invoke, and an error refused before dispatch carries dispatched === false.
async function invokeExact(method, args) {
  const result = await __cuInvoke(method, args);
  if (result !== null && typeof result === "object" && result.isError === true) {
    const error = rebuildError(method, result);
    if (result.nativeCallNotDispatched === true) error.dispatched = false;
    throw error;
  }
  return result;
}

async function listWindows(options) {
  const args = options?.pid === undefined ? {} : { pid: exactAddress({ pid: options.pid, windowId: 1 }).pid };
  const result = await invokeExact("list_windows", args);
  const windows = Array.isArray(result.windows) ? result.windows : [];
  emitText(JSON.stringify(windows), options);
  return windows;
}

const observedWindows = new Map();

async function keyWindow(pid, windowId) {
  const found = (await listWindows({ pid, emit: false })).find((w) => String(w.window_id) === String(windowId));
  if (found === undefined) throw windowError("window_not_found", `Window ${windowId} of pid ${pid} does not exist.`);
  if (found.is_key !== true) {
    throw windowError("window_not_key", `Window ${windowId} of pid ${pid} is not its app's key window; deskhand observes and acts on the key window only.`);
  }
  return found;
}

function stateMode(text) {
  if (text.includes(NO_CHANGE)) return "no_change";
  return text.includes(DIFF_HEADER) ? "diff" : "full";
}

async function observeExact(input) {
  const { pid, windowId } = exactAddress(input);
  await keyWindow(pid, windowId);
  const result = await invokeExact("get_app_state", { app: String(pid), ...(input.disableDiff === true ? { disableDiff: true } : {}) });
  observedWindows.set(pid, windowId);
  await keyWindow(pid, windowId);
  const text = textOf(result);
  remember(indicesFor(String(pid)), text);
  const image = imageOf(result);
  const state = { pid, windowId, mode: stateMode(text), text };
  if (input.includeScreenshot === true && image !== undefined) state.screenshot = { mimeType: image.mimeType, data: image.data };
  return state;
}

function makeWindow(pid, windowId) {
  const act = async (method, args, coordinates) => {
    await keyWindow(pid, windowId);
    if (coordinates && observedWindows.get(pid) !== windowId) {
      throw windowError("app_screenshot_required", `Observe window ${windowId} (observeWindow) before using its coordinates.`);
    }
    return invokeExact(method, { app: String(pid), ...args }).then(actionResult);
  };
  const xy = (x, y) => { const [px, py] = point([x, y], "coordinate"); return { x: px, y: py }; };
  const chord = (keys) => {
    if (!Array.isArray(keys) || keys.length < 2 || !keys.every((k) => typeof k === "string" && k.trim() !== "" && !k.includes("+"))) {
      throw new TypeError("hotkey keys must list at least two key names, e.g. ['ctrl','c']");
    }
    return keys.map((k) => k.trim()).join("+");
  };
  return Object.freeze({
    pid, windowId,
    observe: tracked((options) => observeExact({ ...options, pid, windowId })),
    click: tracked(async (input) => act("click", { ...xy(input?.x, input?.y), ...optional("mouse_button", mouseButton(input?.button)), ...optional("click_count", input?.count) }, true)),
    doubleClick: tracked(async (input) => act("click", { ...xy(input?.x, input?.y), click_count: 2 }, true)),
    rightClick: tracked(async (input) => act("click", { ...xy(input?.x, input?.y), mouse_button: "right" }, true)),
    drag: tracked(async (input) => {
      const [from_x, from_y] = point([input?.fromX, input?.fromY], "from");
      const [to_x, to_y] = point([input?.toX, input?.toY], "to");
      return act("drag", { from_x, from_y, to_x, to_y }, true);
    }),
    scroll: tracked(async (input) => {
      checkPages(input?.pages);
      return act("scroll", { ...xy(input?.x, input?.y), direction: direction(input?.direction), ...optional("pages", input?.pages) }, true);
    }),
    pressKey: tracked(async (input) => {
      if (typeof input?.key !== "string" || input.key.trim() === "") throw new TypeError("key is required");
      return act("press_key", { key: input.key }, false);
    }),
    hotkey: tracked(async (input) => act("press_key", { key: chord(input?.keys) }, false)),
    typeText: tracked(async (input) => {
      if (typeof input?.text !== "string") throw new TypeError("text must be a string");
      return act("type_text", { text: input.text }, false);
    }),
  });
}

async function getWindow(input) {
  const { pid, windowId } = exactAddress(input);
  const found = (await listWindows({ pid, emit: false })).some((w) => String(w.window_id) === String(windowId));
  if (!found) throw windowError("window_not_found", `Window ${windowId} of pid ${pid} does not exist.`);
  return makeWindow(pid, windowId);
}

function expectList(expect) {
  if (!Array.isArray(expect) || expect.length === 0 || !expect.every((e) => typeof e === "string" && e !== "")) {
    throw new TypeError("expect must be a non-empty array of non-empty strings");
  }
  return expect;
}

async function verifyState(input) {
  const { pid, windowId } = exactAddress(input);
  const expect = expectList(input.expect);
  const timeoutMs = input.timeoutMs ?? 2000;
  const stableSamples = input.stableSamples ?? 1;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > 10000) throw new TypeError("timeoutMs must be an integer from 0 to 10000");
  if (!Number.isSafeInteger(stableSamples) || stableSamples < 1 || stableSamples > 5) throw new TypeError("stableSamples must be an integer from 1 to 5");
  const deadline = Date.now() + timeoutMs;
  let run = 0; let samples = 0; let missing = expect;
  for (;;) {
    const { text } = await observeExact({ pid, windowId, disableDiff: true });
    samples += 1;
    missing = expect.filter((e) => !text.includes(e));
    run = missing.length === 0 ? run + 1 : 0;
    if (run >= stableSamples || Date.now() >= deadline) break;
  }
  const satisfied = run >= stableSamples;
  const compared = { expect, found: expect.filter((e) => !missing.includes(e)), missing, samples };
  return { status: satisfied ? "satisfied" : "unsatisfied", stable: satisfied, effect: satisfied ? "confirmed" : "unverifiable", compared };
}

async function actAndVerify(input) {
  const { pid, windowId } = exactAddress(input);
  const expect = expectList(input.expect);
  if (typeof input.act !== "function") throw new TypeError("act must be a function (window) => action");
  const window = await getWindow({ pid, windowId });
  const before = await observeExact({ pid, windowId, disableDiff: true });
  const heldBefore = expect.filter((e) => before.text.includes(e));
  let action;
  try {
    action = await input.act(window);
  } catch (error) {
    if (error?.dispatched === false || error instanceof TypeError) {
      return { effect: "refused", code: error.code, message: String(error.message), compared: { expect } };
    }
    throw error;
  }
  const verified = await verifyState({ pid, windowId, expect, timeoutMs: input.timeoutMs, stableSamples: input.stableSamples });
  const effect = verified.status === "satisfied" && heldBefore.length < expect.length ? "confirmed" : "unverifiable";
  return { effect, status: verified.status, action, compared: { ...verified.compared, heldBefore } };
}

const output = Object.freeze({
  write: tracked(async (value) => {
    let text = typeof value === "string" ? value : JSON.stringify(value);
    if (text === undefined) text = String(value);
    __cuEmit({ type: "text", text });
  }),
  emitImage: tracked(async (value) => {
    if (value !== null && typeof value === "object" && typeof value.data === "string") {
      __cuEmit({ type: "image", data: value.data, mimeType: value.mimeType });
      return;
    }
    const bytes = value instanceof Uint8Array ? value
      : value !== null && typeof value === "object" && value.bytes instanceof Uint8Array ? value.bytes : undefined;
    if (bytes === undefined) throw new Error("emitImage requires Uint8Array bytes or {bytes, mimeType}");
    const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    const given = !(value instanceof Uint8Array) && typeof value.mimeType === "string" && value.mimeType ? value.mimeType : undefined;
    __cuEmit({ type: "image", data: encodeBytes(bytes), mimeType: given ?? (jpeg ? "image/jpeg" : "image/png") });
  }),
});

const api = Object.freeze({
  getApp: tracked(getApp),
  listApps: tracked(listApps),
  getState: tracked(getState),
  computer,
  // Additions: the exact-window workflow (seed 2).
  listWindows: tracked(listWindows),
  getWindow: tracked(getWindow),
  observeWindow: tracked(observeExact),
  verifyState: tracked(verifyState),
  actAndVerify: tracked(actAndVerify),
});
Object.defineProperty(globalThis, "cua", { value: api, writable: false, enumerable: false, configurable: false });
Object.defineProperty(globalThis, "nodeRepl", { value: output, writable: false, enumerable: false, configurable: false });
