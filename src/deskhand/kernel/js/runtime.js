// deskhand js kernel: the worker's private runtime (binding registry, cell control, outbox).
//
// Evaluated once per worker as an expression. It returns the driver API to the Python worker
// and installs only __cuInvoke / __cuEmit as globals; everything else lives in this closure,
// out of reach of user code (native-contract.md sections 5.2 and 5.3).
(function () {
  "use strict";
  const G = globalThis;
  const origThen = Promise.prototype.then;
  const NativePromise = Promise;
  const promiseResolve = Promise.resolve;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const freeze = Object.freeze;
  const define = Object.defineProperty;
  const MAX_ERROR = 8000;
  const ENDED = "This JavaScript cell has ended; await every Computer Use operation.";
  const COMPLETED = "Submitted JavaScript has completed; await every Computer Use operation before the cell ends.";

  const reg = new Map(); // name -> {kind, get, set}
  const pending = new Map(); // requestId -> {resolve, reject, op}
  let outbox = [];
  let nextRequest = 0;
  let cell = null; // the running cell's state
  let context = null; // the cell id a promise continuation was registered in

  function message(error) {
    let text;
    try {
      text = String(error !== null && error !== undefined && error.message !== undefined ? error.message : error);
    } catch (_) {
      text = "JavaScript error";
    }
    return text.length > MAX_ERROR ? text.slice(0, MAX_ERROR) : text;
  }

  // quickjs-ng may hold a concatenated string as a rope, which the Python binding cannot read.
  function flat(text) {
    return [text, ""].join("");
  }

  function constSet() {
    throw new TypeError("Assignment to constant variable.");
  }

  const registry = new Proxy(Object.create(null), {
    get(_, name) {
      if (typeof name !== "string") return undefined;
      const entry = reg.get(name);
      if (entry !== undefined) return entry.get();
      if (name in G) return G[name];
      throw new ReferenceError(name + " is not defined");
    },
    set(_, name, value) {
      const entry = reg.get(name);
      if (entry !== undefined) {
        entry.set(value);
        return true;
      }
      if (typeof name === "string" && name in G) {
        if (!Reflect.set(G, name, value)) throw new TypeError("Cannot assign to read only property '" + name + "'");
        return true;
      }
      throw new ReferenceError(String(name) + " is not defined");
    },
  });

  function lookup(name) {
    return registry[name];
  }

  function typeOf(name) {
    const entry = reg.get(name);
    return entry !== undefined ? typeof entry.get() : typeof G[name];
  }

  function emitNow(c, content) {
    outbox.push(stringify({ type: "emit", cellId: c.id, content }));
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
    reg.set(name, { kind: "let", get: () => value, set: (v) => { value = v; } });
  }

  function control(c) {
    return freeze({
      // begin: register the cell's accessor closures before any user code runs
      b(decls, assigned) {
        for (const name of assigned) {
          const entry = reg.get(name);
          if (entry !== undefined && entry.kind === "const") {
            warnConst(c, name);
            writable(name, entry);
          }
        }
        for (const [name, kind, get, set, markers] of decls) {
          const prev = reg.get(name);
          if (kind === "const" && prev !== undefined && prev.kind === "const") warnConst(c, name);
          c.saved.push([name, prev, kind, markers]);
          reg.set(name, { kind, get, set: set === null ? constSet : set });
          if (kind === "var" && prev !== undefined) {
            try { set(prev.get()); } catch (_) { /* an uninitialized previous binding stays undefined */ }
          }
        }
      },
      m(index) { c.reached[index] = true; },
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
      const [name, prev, kind, markers] = c.saved[i];
      let keep = false;
      if (kind === "var" || kind === "function") {
        keep = markers.some((index) => c.reached[index] === true);
      } else {
        try {
          const entry = reg.get(name);
          if (entry !== undefined) entry.get();
          keep = true;
        } catch (_) {
          keep = false;
        }
      }
      if (!keep) {
        if (prev !== undefined) reg.set(name, prev);
        else reg.delete(name);
      }
    }
  }

  function current() {
    return context;
  }

  // suspend: settle with a box that remembers the cell; resume: restore it, then go on
  function suspend(ctx, value) {
    return origThen.call(promiseResolve.call(NativePromise, value), (v) => ({ ctx, ok: true, v }), (v) => ({ ctx, ok: false, v }));
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
      return origThen.call(this, wrap(onFulfilled, context), wrap(onRejected, context));
    },
  }.then;
  define(Promise.prototype, "then", { value: patched, writable: true, configurable: true, enumerable: false });

  function track(promise, op) {
    origThen.call(promise, undefined, (error) => {
      op.failed = true;
      op.message = message(error);
    });
    return freeze({
      then(onFulfilled, onRejected) { op.observed = true; return promise.then(onFulfilled, onRejected); },
      catch(onRejected) { op.observed = true; return promise.then(undefined, onRejected); },
      finally(onFinally) { op.observed = true; return Promise.prototype.finally.call(promise, onFinally); },
    });
  }

  function refused(text) {
    const op = { observed: true, failed: false, message: "" };
    return track(Promise.reject(new Error(text)), op);
  }

  function invoke(name, args) {
    const c = cell;
    if (c === null || c.ended || (context !== null && context !== c.id)) return refused(ENDED);
    if (c.codeDone) return refused(COMPLETED);
    const requestId = ++nextRequest;
    const frame = stringify({ type: "invoke", cellId: c.id, requestId, name: String(name), args: args === undefined ? {} : args });
    const op = { observed: false, failed: false, message: "" };
    c.ops.push(op);
    const promise = new Promise((resolve, reject) => { pending.set(requestId, { resolve, reject, op }); });
    outbox.push(frame);
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
    const op = { observed: false, failed: false, message: "" };
    c.ops.push(op);
    return track(promise, op);
  }

  define(G, "__cuInvoke", { value: invoke, writable: false, enumerable: false, configurable: false });
  define(G, "__cuEmit", { value: emit, writable: false, enumerable: false, configurable: false });

  function blocked() {
    throw new EvalError("Code generation from strings is not available in Computer Use JavaScript");
  }

  const ops = freeze({
    bootstrap(fn, target) {
      fn(invoke, emit, trackFacade, target);
    },
    lock() {
      blocked.prototype = Function.prototype;
      const kinds = [function () {}, async function () {}, function* () {}, async function* () {}];
      for (const sample of kinds) {
        define(Object.getPrototypeOf(sample), "constructor", { value: blocked, writable: false, configurable: false });
      }
      define(G, "Function", { value: blocked, writable: true, configurable: true, enumerable: false });
      define(G, "eval", { value: blocked, writable: true, configurable: true, enumerable: false });
    },
    start(cellId, fn) {
      const c = { id: cellId, ops: [], saved: [], reached: [], codeDone: false, ended: false, failed: false, error: undefined };
      cell = c;
      context = cellId;
      const done = fn(registry, control(c));
      origThen.call(done, () => { c.codeDone = true; }, (error) => { c.codeDone = true; c.failed = true; c.error = error; });
    },
    // before each job: a job that restores no cell of its own runs in the current one
    job() {
      context = cell !== null ? cell.id : null;
    },
    drain() {
      const text = '{"done":' + (cell !== null && cell.codeDone) + ',"pending":' + pending.size + ',"messages":[' + outbox.join(",") + "]}";
      outbox = [];
      return flat(text);
    },
    settle(requestId, json) {
      const waiter = pending.get(requestId);
      if (waiter === undefined) return;
      pending.delete(requestId);
      const reply = parse(json);
      if (typeof reply.error === "string") {
        waiter.reject(new Error(reply.error));
        return;
      }
      const result = reply.result;
      if (result !== null && typeof result === "object" && result.isError === true) {
        const native = result.nativeError;
        const texts = Array.isArray(result.content) ? result.content.filter((b) => b && b.type === "text").map((b) => b.text) : [];
        waiter.op.failed = true;
        waiter.op.message = native && typeof native.message === "string" ? native.message : texts.join("\n") || "Computer Use operation failed";
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
        const op = c.ops.find((o) => o.failed && !o.observed);
        if (op !== undefined) {
          error = "An unawaited Computer Use operation failed: " + op.message +
            ". Observe the current state before continuing; do not replay prior actions.";
        }
      }
      if (error !== null) commitFailed(c);
      return error === null ? "" : flat(error || "Error");
    },
  });
  // The Python driver holds this one function; quickjs handles expose no properties.
  return function driver(op, a, b) {
    return ops[op](a, b);
  };
})()
