/**
 * Preloaded (`node --require bench/loopback-only.cjs`) into a program the benchmarks run but do not
 * own (Portkey's gateway, which listens on every interface): a server told no address listens on
 * 127.0.0.1 instead, so every listener of a bench run stays on loopback. CommonJS so that `--require`
 * loads it before the program.
 */
'use strict';
const net = require('node:net');

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (args.length === 1 || args[1] === undefined || typeof args[1] === 'function') {
      const rest = args.slice(args[1] === undefined && args.length > 1 ? 2 : 1);
      return listen.call(this, first, '127.0.0.1', ...rest);
    }
  } else if (first && typeof first === 'object' && !('path' in first) && !first.host) {
    return listen.call(this, { ...first, host: '127.0.0.1' }, ...args.slice(1));
  }
  return listen.apply(this, args);
};
