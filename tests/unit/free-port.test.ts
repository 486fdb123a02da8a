/**
 * freePort picks listeners' ports below the kernel's ephemeral range: a port the kernel hands out
 * (to an outgoing connection, or a listener on port 0) is never one it picked, so a listener that
 * binds it seconds later does not meet EADDRINUSE (a CI run failed so on a loaded machine).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { freePort } from '../../local/runtime';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number)[0]);

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('freePort', () => {
  it('answers distinct ports below the ephemeral range that a listener can bind', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10000);
      expect(port).toBeLessThan(ephemeralLow);
    }
    const servers = await Promise.all(ports.map(listen));
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
});
