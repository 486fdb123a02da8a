/**
 * The emulator's platform state on disk, as DynamoDB Local keeps its tables under `.data/`: so that a
 * restart of `npm start` changes nothing on the emulated platforms. Without it every dedicated
 * endpoint would vanish at a restart and the reconciler would rightly read them as deleted outside the
 * service.
 *
 * Kept: what exists on the platform (endpoints with any transition under way, endpoint
 * configurations, models, tags), the invocations CloudWatch would still have at one-minute resolution
 * (15 days, longer than any idle timeout), and the id counter (so names made after a restart never
 * repeat one made before). Not kept: call counts and injected faults, which are instruments of a run.
 *
 * Written after any request that changed it (compared as text, so a read that settles a transition
 * counts), at most every WRITE_DELAY_MS, atomically (a temporary file renamed over the last one), and
 * once more when the emulator closes. The tests run the emulator without a file, in memory.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ApplicationProfile, Endpoint, EndpointConfig, EmulatorState, Invocation, SmModel, Tag } from './shared';

const VERSION = 1;
/** At most one write a second: under load (a benchmark's hundreds of calls a second) each write is a snapshot of the whole state. */
const WRITE_DELAY_MS = 1000;
/** CloudWatch keeps one-minute datapoints for 15 days. */
const INVOCATION_RETENTION_MS = 15 * 86_400_000;

interface Snapshot {
  version: number;
  nextId: number;
  endpoints: Endpoint[];
  endpointConfigs: EndpointConfig[];
  models: SmModel[];
  tags: [string, Tag[]][];
  invocations: Invocation[];
  inferenceProfiles?: ApplicationProfile[];
}

function snapshotOf(state: EmulatorState, now: number): Snapshot {
  return {
    version: VERSION,
    nextId: state.nextId,
    endpoints: [...state.endpoints.values()],
    endpointConfigs: [...state.endpointConfigs.values()],
    models: [...state.models.values()],
    tags: [...state.tags.entries()],
    invocations: state.invocations.filter((i) => now - i.at <= INVOCATION_RETENTION_MS),
    inferenceProfiles: [...state.inferenceProfiles.values()],
  };
}

/** Puts a saved snapshot into a fresh state. Throws on a file that is not one. */
function restore(state: EmulatorState, text: string): void {
  const s = JSON.parse(text) as Snapshot;
  if (s?.version !== VERSION || !Array.isArray(s.endpoints) || !Array.isArray(s.endpointConfigs) || !Array.isArray(s.models)) {
    throw new Error(`not an emulator state of version ${VERSION}`);
  }
  state.nextId = Math.max(state.nextId, Number(s.nextId) || 1);
  state.endpoints = new Map(s.endpoints.map((e) => [e.name, e]));
  state.endpointConfigs = new Map(s.endpointConfigs.map((c) => [c.name, c]));
  state.models = new Map(s.models.map((m) => [m.name, m]));
  state.tags = new Map(s.tags ?? []);
  state.invocations = s.invocations ?? [];
  state.inferenceProfiles = new Map((s.inferenceProfiles ?? []).map((p) => [p.id, p]));
}

export interface StateStore {
  /** After a request: writes the state soon if it changed. */
  changed(): void;
  /** Writes what is pending now (on close). */
  flush(): void;
}

/**
 * Loads `file` into `state` (when it exists) and returns the store that keeps it written. A file
 * that cannot be read is set aside (`<file>.unreadable`) with a warning, and the emulator starts empty.
 */
export function persistState(state: EmulatorState, file: string): StateStore {
  if (existsSync(file)) {
    try {
      restore(state, readFileSync(file, 'utf8'));
    } catch (err) {
      renameSync(file, `${file}.unreadable`);
      console.warn(`[emulator] ${file} could not be read (${(err as Error).message}); set aside as ${file}.unreadable, starting empty`);
    }
  }
  mkdirSync(dirname(file), { recursive: true });
  let written = JSON.stringify(snapshotOf(state, Date.now()));
  let timer: NodeJS.Timeout | undefined;

  const write = () => {
    timer = undefined;
    const text = JSON.stringify(snapshotOf(state, Date.now()));
    if (text === written) return;
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
    written = text;
  };
  return {
    changed: () => {
      timer ??= setTimeout(write, WRITE_DELAY_MS);
    },
    flush: () => {
      if (timer) clearTimeout(timer);
      write();
    },
  };
}
