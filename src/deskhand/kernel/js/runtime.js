// deskhand js kernel: the worker's private runtime (binding registry, cell control, outbox).
//
// Evaluated once per worker as an expression. It returns the driver API to the Python worker
// and installs only __cuInvoke / __cuEmit as globals; everything else lives in this closure,
// out of reach of user code (native-contract.md sections 5.2 and 5.3).
//
// User code may rewrite any prototype (a prompt injection may try to keep a hook for the rest
// of the session), so this file calls no method through a prototype lookup once it is loaded:
// it holds the pristine intrinsics below and calls them with Reflect.apply, keeps its state in
// Maps and strings, serializes frames with its own copier (no toJSON, no getters on the
// prototype chain), and lock() makes the hooks the engine itself consults unwritable. Then
// js/harden.js freezes every built-in.
(function () {
  "use strict";
  const G = globalThis;
  const apply = Reflect.apply;
  const origThen = Promise.prototype.then;
  const origFinally = Promise.prototype.finally;
  const NativePromise = Promise;
  const NativeError = Error;
  const NativeTypeError = TypeError;
  const NativeReferenceError = ReferenceError;
  const NativeMap = Map;
  const Str = String;
  const promiseResolve = Promise.resolve;
  const promiseReject = Promise.reject;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const freeze = Object.freeze;
  const define = Object.defineProperty;
  const describe = Object.getOwnPropertyDescriptor;
  const keys = Object.keys;
  const isArray = Array.isArray;
  const hasOwn = Object.prototype.hasOwnProperty;
  const join = Array.prototype.join;
  const slice = String.prototype.slice;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapHas = Map.prototype.has;
  const mapDelete = Map.prototype.delete;
  const mapForEach = Map.prototype.forEach;
  const reflectSet = Reflect.set;
  const setPrototypeOf = Reflect.setPrototypeOf;
  const getPrototypeOf = Reflect.getPrototypeOf;
  const defineOwn = Reflect.defineProperty;
  const MAX_DEPTH = 64;
  const MAX_ERROR = 8000;
  const ENDED = "This JavaScript cell has ended; await every Computer Use operation.";
  const COMPLETED = "Submitted JavaScript has completed; await every Computer Use operation before the cell ends.";

  const reg = new NativeMap(); // name -> {kind, get, set}
  const pending = new NativeMap(); // requestId -> {resolve, reject, op}
  let pendingCount = 0;
  let outbox = ""; // the frames since the last drain, comma-separated
  let nextRequest = 0;
  let cell = null; // the running cell's state
  let context = null; // the cell id a promise continuation was registered in

  function message(error) {
    let text;
    try {
      text = Str(error !== null && error !== undefined && error.message !== undefined ? error.message : error);
    } catch (_) {
      text = "JavaScript error";
    }
    return text.length > MAX_ERROR ? apply(slice, text, [0, MAX_ERROR]) : text;
  }

  // quickjs-ng may hold a concatenated string as a rope, which the Python binding cannot read.
  function flat(text) {
    return apply(join, [text, ""], [""]);
  }

  function own(object, name) {
    return object !== null && typeof object === "object" && apply(hasOwn, object, [name]) ? object[name] : undefined;
  }

  function get(map, key) { return apply(mapGet, map, [key]); }
  function put(map, key, value) { apply(mapSet, map, [key, value]); }
  function has(map, key) { return apply(mapHas, map, [key]); }
  function drop(map, key) { apply(mapDelete, map, [key]); }

  // Append without [[Set]]: a setter on an index of Array.prototype or Object.prototype never runs.
  function push(list, value) {
    define(list, list.length, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
  }

  // A JSON-ready copy of plain data made of null-prototype containers: JSON.stringify then
  // consults no toJSON and no inherited getter. Functions, undefined and symbols are dropped.
  function plain(value, depth) {
    const kind = typeof value;
    if (kind === "bigint") throw new NativeTypeError("Do not know how to serialize a BigInt");
    if (kind !== "object") return kind === "function" || kind === "symbol" ? undefined : value;
    if (value === null) return null;
    if (depth > MAX_DEPTH) throw new NativeTypeError("Computer Use arguments are nested too deeply or circular");
    if (isArray(value)) {
      const out = [];
      const length = value.length;
      for (let i = 0; i < length; i++) {
        const item = plain(value[i], depth + 1);
        push(out, item === undefined ? null : item);
      }
      setPrototypeOf(out, null);
      return out;
    }
    const out = { __proto__: null };
    const names = keys(value);
    for (let i = 0; i < names.length; i++) {
      const item = plain(value[names[i]], depth + 1);
      if (item !== undefined) define(out, names[i], { __proto__: null, value: item, writable: true, enumerable: true, configurable: true });
    }
    return out;
  }

  function serialize(value) {
    return stringify(plain(value, 0));
  }

  function queue(frame) {
    outbox = outbox === "" ? frame : outbox + "," + frame;
  }

  function constSet() {
    throw new TypeError("Assignment to constant variable.");
  }

  const registry = new Proxy(Object.create(null), {
    get(_, name) {
      if (typeof name !== "string") return undefined;
      const entry = get(reg, name);
      if (entry !== undefined) return entry.get();
      if (name in G) return G[name];
      throw new NativeReferenceError(name + " is not defined");
    },
    set(_, name, value) {
      const entry = get(reg, name);
      if (entry !== undefined) {
        entry.set(value);
        return true;
      }
      if (typeof name === "string" && name in G) {
        if (!reflectSet(G, name, value)) throw new NativeTypeError("Cannot assign to read only property '" + name + "'");
        return true;
      }
      throw new NativeReferenceError(Str(name) + " is not defined");
    },
  });

  function lookup(name) {
    return registry[name];
  }

  function typeOf(name) {
    const entry = get(reg, name);
    return entry !== undefined ? typeof entry.get() : typeof G[name];
  }

  function emitNow(c, content) {
    queue('{"type":"emit","cellId":' + c.id + ',"content":' + serialize(content) + "}");
  }

  function warnConst(c, name) {
    emitNow(c, { type: "text", text: "Warning: " + name + " was declared with const; use let for reassignable variables." });
  }

  function writable(name, entry) {
    let value;
    try {
      value = entry.get();
    } catch (_) {
      value = undefined;
    }
    put(reg, name, { __proto__: null, kind: "let", get: () => value, set: (v) => { value = v; } });
  }

  function control(c) {
    return freeze({
      // begin: register the cell's accessor closures before any user code runs
      b(decls, assigned) {
        for (let i = 0; i < assigned.length; i++) {
          const name = assigned[i];
          const entry = get(reg, name);
          if (entry !== undefined && entry.kind === "const") {
            warnConst(c, name);
            writable(name, entry);
          }
        }
        for (let i = 0; i < decls.length; i++) {
          const decl = decls[i];
          const name = decl[0], kind = decl[1], getter = decl[2], setter = decl[3], markers = decl[4];
          const prev = get(reg, name);
          if (kind === "const" && prev !== undefined && prev.kind === "const") warnConst(c, name);
          push(c.saved, { __proto__: null, name, prev, kind, markers });
          put(reg, name, { __proto__: null, kind, get: getter, set: setter === null ? constSet : setter });
          if (kind === "var" && prev !== undefined) {
            try { setter(prev.get()); } catch (_) { /* an uninitialized previous binding stays undefined */ }
          }
        }
      },
      m(index) { put(c.reached, index, true); },
      // x/s/r: an await captures the cell it runs in and its continuation restores it
      x: current,
      s: suspend,
      r: resume,
      // e: a for await body, or the code after the loop, re-enters the cell the loop started in
      e: enter,
      c: lookup,
      t: typeOf,
    });
  }

  // The failed-cell commit rule (section 5.3): keep what was initialized or reached.
  function commitFailed(c) {
    for (let i = c.saved.length - 1; i >= 0; i--) {
      const saved = c.saved[i];
      const name = saved.name, prev = saved.prev, kind = saved.kind, markers = saved.markers;
      let keep = false;
      if (kind === "var" || kind === "function") {
        for (let j = 0; j < markers.length && !keep; j++) keep = get(c.reached, markers[j]) === true;
      } else {
        try {
          const entry = get(reg, name);
          if (entry !== undefined) entry.get();
          keep = true;
        } catch (_) {
          keep = false;
        }
      }
      if (!keep) {
        if (prev !== undefined) put(reg, name, prev);
        else drop(reg, name);
      }
    }
  }

  function current() {
    return context;
  }

  // suspend: settle with a box that remembers the cell; resume: restore it, then go on
  // The box has no prototype: a `then` on Object.prototype cannot make it a thenable.
  function suspend(ctx, value) {
    const settled = apply(promiseResolve, NativePromise, [value]);
    return apply(origThen, settled, [(v) => ({ __proto__: null, ctx, ok: true, v }), (v) => ({ __proto__: null, ctx, ok: false, v })]);
  }

  function resume(box) {
    context = box.ctx;
    if (!box.ok) throw box.v;
    return box.v;
  }

  function enter(ctx) {
    context = ctx;
  }

  function wrap(fn, ctx) {
    if (typeof fn !== "function") return fn;
    return (value) => {
      const saved = context;
      context = ctx;
      try {
        return fn(value);
      } finally {
        context = saved;
      }
    };
  }

  // Continuations remember the cell they were registered in, so a callback from an
  // earlier cell cannot dispatch in a later one.
  const patched = {
    then(onFulfilled, onRejected) {
      return apply(origThen, this, [wrap(onFulfilled, context), wrap(onRejected, context)]);
    },
  }.then;
  // lock() freezes it: a hook here would see, and could add calls to, every later cell's awaits.
  define(Promise.prototype, "then", { value: patched, writable: true, configurable: true, enumerable: false });

  function track(promise, op) {
    apply(origThen, promise, [undefined, (error) => {
      op.failed = true;
      op.message = message(error);
    }]);
    return freeze({
      then(onFulfilled, onRejected) { op.observed = true; return apply(patched, promise, [onFulfilled, onRejected]); },
      catch(onRejected) { op.observed = true; return apply(patched, promise, [undefined, onRejected]); },
      finally(onFinally) { op.observed = true; return apply(origFinally, promise, [onFinally]); },
    });
  }

  function refused(text) {
    const op = { __proto__: null, observed: true, failed: false, message: "" };
    return track(apply(promiseReject, NativePromise, [new NativeError(text)]), op);
  }

  function invoke(name, args) {
    const c = cell;
    if (c === null || c.ended || (context !== null && context !== c.id)) return refused(ENDED);
    if (c.codeDone) return refused(COMPLETED);
    const text = stringify(Str(name));
    const body = serialize(args === undefined ? {} : args);
    if (cell !== c || c.ended || c.codeDone) return refused(ENDED); // user code ran while copying
    const requestId = ++nextRequest;
    const op = { __proto__: null, observed: false, failed: false, message: "" };
    push(c.ops, op);
    const promise = new NativePromise((resolve, reject) => {
      put(pending, requestId, { __proto__: null, resolve, reject, op });
      pendingCount++;
    });
    queue('{"type":"invoke","cellId":' + c.id + ',"requestId":' + requestId + ',"name":' + text + ',"args":' + body + "}");
    return track(promise, op);
  }

  function emit(content) {
    const c = cell;
    if (c === null || c.ended) return;
    emitNow(c, content);
  }

  function trackFacade(promise) {
    const c = cell;
    if (c === null || c.ended) return promise;
    const op = { __proto__: null, observed: false, failed: false, message: "" };
    push(c.ops, op);
    return track(promise, op);
  }

  define(G, "__cuInvoke", { value: invoke, writable: false, enumerable: false, configurable: false });
  define(G, "__cuEmit", { value: emit, writable: false, enumerable: false, configurable: false });

  function blocked() {
    throw new EvalError("Code generation from strings is not available in Computer Use JavaScript");
  }

  function fix(object, name, value) {
    define(object, name, { __proto__: null, value, writable: false, configurable: false, enumerable: false });
  }

  const ops = freeze({
    bootstrap(fn, target) {
      // The facade reads these through its own parameters: a cell that reassigns the global
      // JSON or Object cannot change what the facade calls.
      const pristine = [JSON, Object, Array, Number, String, Map, Error, TypeError, Uint8Array, isFinite, atob, btoa];
      apply(fn, undefined, [invoke, emit, trackFacade, target, ...pristine]);
    },
    lock() {
      blocked.prototype = Function.prototype;
      const kinds = [function () {}, async function () {}, function* () {}, async function* () {}];
      for (const sample of kinds) {
        define(Object.getPrototypeOf(sample), "constructor", { value: blocked, writable: false, configurable: false });
      }
      define(G, "Function", { value: blocked, writable: true, configurable: true, enumerable: false });
      define(G, "eval", { value: blocked, writable: true, configurable: true, enumerable: false });
      // The hooks the engine consults by itself: CallSite.getFunction() would hand out this
      // runtime's functions; a species or constructor swap would run user code inside then().
      fix(NativeError, "prepareStackTrace", undefined);
      const species = describe(NativePromise, Symbol.species);
      define(NativePromise, Symbol.species, { __proto__: null, get: species.get, configurable: false, enumerable: false });
    },
    start(cellId, fn) {
      const c = {
        __proto__: null, id: cellId, ops: [], saved: [], reached: new NativeMap(),
        codeDone: false, ended: false, failed: false, error: undefined,
      };
      cell = c;
      context = cellId;
      const done = fn(registry, control(c));
      apply(origThen, done, [() => { c.codeDone = true; }, (error) => { c.codeDone = true; c.failed = true; c.error = error; }]);
    },
    // before each job: a job that restores no cell of its own runs in the current one
    job() {
      context = cell !== null ? cell.id : null;
    },
    drain() {
      const text = '{"done":' + (cell !== null && cell.codeDone) + ',"pending":' + pendingCount + ',"messages":[' + outbox + "]}";
      outbox = "";
      return flat(text);
    },
    settle(requestId, json) {
      const waiter = get(pending, requestId);
      if (waiter === undefined) return;
      drop(pending, requestId);
      pendingCount--;
      const reply = parse(json);
      const error = own(reply, "error");
      if (typeof error === "string") {
        waiter.reject(new NativeError(error));
        return;
      }
      const result = own(reply, "result");
      if (own(result, "isError") === true) {
        const native = own(result, "nativeError");
        const blocks = own(result, "content");
        const texts = [];
        if (isArray(blocks)) {
          for (let i = 0; i < blocks.length; i++) {
            if (own(blocks[i], "type") === "text") push(texts, own(blocks[i], "text"));
          }
        }
        const nativeText = own(native, "message");
        waiter.op.failed = true;
        waiter.op.message = typeof nativeText === "string" ? nativeText : apply(join, texts, ["\n"]) || "Computer Use operation failed";
      }
      waiter.resolve(result);
    },
    finish() {
      const c = cell;
      if (c === null) return "";
      c.ended = true;
      cell = null;
      context = null;
      let error = null;
      if (c.failed) error = message(c.error);
      else {
        for (let i = 0; i < c.ops.length && error === null; i++) {
          const op = c.ops[i];
          if (op.failed && !op.observed) {
            error = "An unawaited Computer Use operation failed: " + op.message +
              ". Observe the current state before continuing; do not replay prior actions.";
          }
        }
      }
      if (error !== null) commitFailed(c);
      // JSON text: a lone surrogate in the error arrives escaped, never as invalid UTF-8.
      return error === null ? "" : flat(stringify(error || "Error"));
    },
  });
  // The Python driver holds this one function; quickjs handles expose no properties.
  return function driver(op, a, b) {
    return ops[op](a, b);
  };
})()
