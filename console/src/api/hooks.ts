import { useCallback, useEffect, useRef, useState } from 'react';

export interface Query<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
  setData: (data: T) => void;
}

/**
 * Runs `load` when the component mounts and whenever `deps` change; a late answer to an earlier
 * request never overwrites a newer one.
 */
export function useQuery<T>(load: () => Promise<T>, deps: readonly unknown[]): Query<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const run = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await load();
      if (mine === generation.current) {
        setData(value);
        setError(undefined);
      }
    } catch (err) {
      if (mine === generation.current) setError(err);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(() => {
    void run();
    return () => {
      // Invalidating the generation current at cleanup is the point: answers of a superseded run are dropped.
      // eslint-disable-next-line react-hooks/exhaustive-deps
      generation.current++;
    };
  }, [run]);
  return { data, error, loading, reload: run, setData };
}

/** A submit-style action: its pending state and its last error, for the form that runs it. */
export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = useCallback(
    async (...args: A): Promise<T | undefined> => {
      setPending(true);
      setError(undefined);
      try {
        return await action(...args);
      } catch (err) {
        setError(err);
        return undefined;
      } finally {
        setPending(false);
      }
    },
    [action],
  );
  return { run, pending, error, setError };
}

/** Calls `tick` every `ms` while `active`; stops on unmount. */
export function useInterval(tick: () => void, ms: number, active = true): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => saved.current(), ms);
    return () => clearInterval(id);
  }, [ms, active]);
}

/** A list read page by page with an opaque cursor: the first page on mount, more on request. */
export function usePaged<T>(loadPage: (cursor?: string) => Promise<{ items: T[]; nextCursor: string | null }>) {
  const [older, setOlder] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const first = useQuery(async () => {
    const page = await loadPage();
    setOlder([]);
    setCursor(page.nextCursor);
    return page.items;
  }, []);
  const more = useAction(async () => {
    if (!cursor) return;
    const page = await loadPage(cursor);
    setOlder((o) => [...o, ...page.items]);
    setCursor(page.nextCursor);
  });
  return {
    items: [...(first.data ?? []), ...older],
    first,
    more,
    hasMore: cursor !== null,
    /** Puts a changed item in place wherever it is. */
    replace: (match: (item: T) => boolean, item: T) => {
      first.setData((first.data ?? []).map((x) => (match(x) ? item : x)));
      setOlder((o) => o.map((x) => (match(x) ? item : x)));
    },
  };
}
