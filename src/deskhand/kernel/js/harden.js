// deskhand js kernel: freezing the built-ins once the runtime and the facade are installed.
//
// Evaluated once per worker, right after js/runtime.js and before the facade (so it sees only
// the engine's own globals), as an expression that returns harden(); the worker calls it after
// the runtime's lock().
//
(function () {
  "use strict";
  const G = globalThis;
  const BUILTIN_NAMES = Reflect.ownKeys(G); // before the facade adds cua and nodeRepl
  const apply = Reflect.apply;
  const describe = Object.getOwnPropertyDescriptor;
  const define = Object.defineProperty;
  const defineOwn = Reflect.defineProperty;
  const freeze = Object.freeze;
  const getPrototypeOf = Reflect.getPrototypeOf;
  const hasOwn = Object.prototype.hasOwnProperty;
  const NativeMap = Map;
  const NativePromise = Promise;
  const NativeError = Error;
  const NativeTypeError = TypeError;
  const Str = String;
  const mapSet = Map.prototype.set;
  const mapHas = Map.prototype.has;
  const mapForEach = Map.prototype.forEach;
  function has(map, key) { return apply(mapHas, map, [key]); }
  function put(map, key, value) { apply(mapSet, map, [key, value]); }

  // Every built-in object (constructors, prototypes, iterator and generator prototypes, JSON,
  // Math, Reflect) is frozen, so no cell can leave a hook in one (a prototype method, an
  // iterator's next, a toJSON, a then) for the facade or a later cell to run. The few
  // inherited properties that ordinary code assigns on its own objects (e.g. `this.name` in an
  // Error subclass, `o.toString = f`) become accessors whose setter defines an own property on
  // the instance, as before the freeze; assigning to the built-in itself throws.
  const ENABLED = [
    ["Object.prototype", ["constructor", "toString", "toLocaleString", "valueOf", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable"]],
    ["Array.prototype", ["constructor", "toString", "push", "join", "concat"]],
    ["Function.prototype", ["toString", "apply", "call", "bind"]],
    ["Promise.prototype", ["then", "catch", "finally"]],
    ["Error.prototype", ["constructor", "name", "message", "toString"]],
  ];
  const ERROR_NAMES = ["EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError", "AggregateError", "InternalError"];

  function intrinsicObjects() {
    const found = new NativeMap();
    const add = (value) => {
      if (((typeof value === "object" && value !== null) || typeof value === "function") && value !== G && !has(found, value)) {
        put(found, value, true);
      }
    };
    for (let i = 0; i < BUILTIN_NAMES.length; i++) {
      const d = describe(G, BUILTIN_NAMES[i]);
      if (d === undefined || !apply(hasOwn, d, ["value"])) continue;
      add(d.value);
      if (typeof d.value === "function") {
        const proto = describe(d.value, "prototype");
        if (proto !== undefined && apply(hasOwn, proto, ["value"])) add(proto.value);
      }
    }
    const samples = [
      [][Symbol.iterator](), new NativeMap()[Symbol.iterator](), new Set()[Symbol.iterator](),
      ""[Symbol.iterator](), /x/[Symbol.matchAll](""), function* () {}, async function () {},
      async function* () {}, function* () {}(), async function* () {}(), Uint8Array,
    ];
    for (let i = 0; i < samples.length; i++) {
      let object = getPrototypeOf(samples[i]);
      for (let depth = 0; object !== null && depth < 3; depth++) {
        add(object);
        const proto = typeof object === "function" ? describe(object, "prototype") : undefined;
        if (proto !== undefined && apply(hasOwn, proto, ["value"])) add(proto.value);
        object = getPrototypeOf(object);
      }
    }
    return found;
  }

  function enable(object, name) {
    const d = describe(object, name);
    if (d === undefined || !apply(hasOwn, d, ["value"]) || d.configurable !== true) return;
    const value = d.value;
    define(object, name, {
      __proto__: null,
      configurable: false,
      enumerable: d.enumerable,
      get() { return value; },
      set(next) {
        if (this === object) throw new NativeTypeError("Cannot assign to read only property '" + Str(name) + "' of a built-in object");
        const own = { __proto__: null, value: next, writable: true, enumerable: true, configurable: true };
        if (!defineOwn(this, name, own)) throw new NativeTypeError("Cannot assign to read only property '" + Str(name) + "'");
      },
    });
  }

  function harden() {
    const at = (path) => (path === "Object.prototype" ? Object.prototype : path === "Array.prototype" ? Array.prototype
      : path === "Function.prototype" ? Function.prototype : path === "Promise.prototype" ? NativePromise.prototype : NativeError.prototype);
    for (let i = 0; i < ENABLED.length; i++) {
      const object = at(ENABLED[i][0]);
      for (let j = 0; j < ENABLED[i][1].length; j++) enable(object, ENABLED[i][1][j]);
    }
    for (let i = 0; i < ERROR_NAMES.length; i++) {
      const ctor = G[ERROR_NAMES[i]];
      if (typeof ctor !== "function") continue;
      const names = ["constructor", "name", "message"];
      for (let j = 0; j < names.length; j++) enable(ctor.prototype, names[j]);
    }
    apply(mapForEach, intrinsicObjects(), [(_, object) => { freeze(object); }]);
  }

  return harden;
})()
