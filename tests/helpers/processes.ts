/**
 * What a process tree is and what it listens on, read from Linux's /proc: for the tests that check
 * that the local stack binds nothing but loopback and leaves nothing behind when its start process dies.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Every live process's parent, by pid. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (field 2) is in parentheses and may hold spaces: the parent pid follows its ")".
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      map.set(Number(entry), ppid);
    } catch {
      // gone meanwhile
    }
  }
  return map;
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const ppids = parents();
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of ppids) if (parent === tree[i]) tree.push(child);
  return tree.filter((p) => p === pid || ppids.has(p));
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** "0100007F:1F40" (tcp) or the 32-digit tcp6 form, as an address and a port. */
function parseAddress(hex: string): { address: string; port: number } {
  const [ip, port] = hex.split(':') as [string, string];
  const bytes = (word: string) => (word.match(/../g) as string[]).reverse().map((b) => parseInt(b, 16));
  let address: string;
  if (ip.length === 8) address = bytes(ip).join('.');
  else {
    // Four 32-bit words, each in host (little-endian) order.
    const all = (ip.match(/.{8}/g) as string[]).flatMap(bytes);
    const groups = Array.from({ length: 8 }, (_, i) => (((all[2 * i] as number) << 8) | (all[2 * i + 1] as number)).toString(16));
    address = groups.join(':');
    if (address === '0:0:0:0:0:ffff:' + groups.slice(6).join(':')) address = `::ffff:${all.slice(12).join('.')}`;
    else if (address === '0:0:0:0:0:0:0:1') address = '::1';
    else if (address === '0:0:0:0:0:0:0:0') address = '::';
  }
  return { address, port: parseInt(port, 16) };
}

export interface Listener {
  pid: number;
  address: string;
  port: number;
}

/** The TCP sockets in LISTEN state that the processes `pids` hold. */
export function listeners(pids: number[]): Listener[] {
  const owner = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) owner.set(inode, pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  const found: Listener[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A') continue; // 0A: LISTEN
      const pid = owner.get(cols[9] as string);
      if (pid !== undefined) found.push({ pid, ...parseAddress(cols[1] as string) });
    }
  }
  return found;
}

/** 127.0.0.0/8, ::1, or 127.0.0.0/8 mapped into IPv6. */
export function isLoopback(address: string): boolean {
  return /^127\./.test(address) || address === '::1' || /^::ffff:127\./.test(address);
}
