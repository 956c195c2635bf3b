/**
 * The unit project's proof that its tests open no socket: connecting or listening throws, naming
 * the test file, so a test that needs the network fails here and belongs to the integration project
 * (test/projects.ts). Loopback counts too: a relay, a fake platform or PostgreSQL is integration.
 */
import net from 'node:net';
import { expect } from 'vitest';

function refuse(what: string): never {
  const file = expect.getState().testPath ?? 'a unit test';
  throw new Error(
    `${what} in the unit project (${file}): unit tests open no socket; list the file as integration in test/projects.ts`,
  );
}

net.Socket.prototype.connect = function connect() {
  refuse('net.Socket connect');
} as typeof net.Socket.prototype.connect;
net.Server.prototype.listen = function listen() {
  refuse('net.Server listen');
} as typeof net.Server.prototype.listen;
