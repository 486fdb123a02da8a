import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { api, unwrap, type Schemas } from '../api/client';
import { useAction, useQuery } from '../api/hooks';
import { Markdown } from '../components/Markdown';
import { ErrorText, Field, PageTitle, Spinner } from '../components/ui';
import { count, dateTime, int, ms, usd } from '../format';

type Message = Schemas['ConversationMessage'];
type Resource = Schemas['Resource'];
type Route = Schemas['Route'];
type Conversation = Schemas['Conversation'];
type Price = { input: number; output: number } | 'hourly' | undefined;

export default function Chat() {
  const { conversationId } = useParams<{ conversationId?: string }>();
  const conversations = useQuery(() => unwrap(api.GET('/api/conversations', { params: { query: { limit: 50 } } })), []);
  const resources = useQuery(() => unwrap(api.GET('/api/resources', { params: { query: { limit: 100, status: 'InService' } } })), []);
  const current = conversations.data?.conversations.find((c) => c.id === conversationId);
  return (
    <section>
      <PageTitle>Chat</PageTitle>
      <div className="chat-layout">
        <aside aria-label="Conversations" className="conversations">
          <h2>Conversations</h2>
          {conversations.loading && !conversations.data ? <Spinner label="Loading conversations…" /> : null}
          <ErrorText error={conversations.error} />
          <ul>
            {conversations.data?.conversations.map((c) => (
              <li key={c.id}>
                <Link href={`/chat/${c.id}`} aria-current={c.id === conversationId ? 'page' : undefined}>
                  {c.title}
                </Link>
                <span className="hint"> {c.deployed_resource.resource_name}</span>
              </li>
            ))}
          </ul>
          {conversations.data && conversations.data.conversations.length === 0 ? <p>No conversations yet.</p> : null}
          <NewConversation resources={resources.data?.resources} resourcesError={resources.error} onCreated={() => void conversations.reload()} />
        </aside>
        <div className="conversation">
          {conversationId && current ? (
            <ConversationView key={conversationId} conversation={current} resources={resources.data?.resources ?? []} />
          ) : conversationId && conversations.data ? (
            <p>This conversation was not found among yours.</p>
          ) : !conversationId ? (
            <p className="lead">Choose a conversation, or start a new one with a deployed resource.</p>
          ) : null}
        </div>
      </div>
    </section>
  );
}

function NewConversation(props: { resources?: Resource[]; resourcesError: unknown; onCreated: () => void }) {
  const [title, setTitle] = useState('');
  const [useCase, setUseCase] = useState('');
  const [resourceId, setResourceId] = useState('');
  const [, navigate] = useLocation();
  const create = useAction(async () => {
    const r = props.resources?.find((x) => x.id === resourceId);
    if (!r) throw new Error('Choose a resource to chat with.');
    return unwrap(
      api.POST('/api/conversations', {
        body: {
          title: title.trim(),
          use_case: useCase.trim() || 'chat',
          deployed_resource: {
            resource_name: r.name,
            resource_type: r.type,
            // What the platform knows it by: an endpoint's name, else the model it gives access to.
            cloud_resource_id: r.lifecycle === 'endpoint' ? r.name : r.model_name,
            region: /^[a-z0-9]+(-[a-z0-9]+)*$/.test(r.region) ? r.region : 'global',
            estimated_hourly_cost: 0,
          },
        },
      }),
    );
  });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const res = await create.run();
    if (res) {
      setTitle('');
      setUseCase('');
      props.onCreated();
      navigate(`/chat/${res.conversation_id}`);
    }
  };
  return (
    <form onSubmit={submit} className="form compact" aria-labelledby="new-conversation">
      <h3 id="new-conversation">New conversation</h3>
      <Field label="Title">{(id) => <input id={id} value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={200} />}</Field>
      <Field label="Use case">
        {(id) => <input id={id} value={useCase} onChange={(e) => setUseCase(e.target.value)} maxLength={500} placeholder="support, drafting…" />}
      </Field>
      <ResourceSelect label="Resource" resources={props.resources} value={resourceId} onChange={setResourceId} />
      <ErrorText error={props.resourcesError} />
      <ErrorText error={create.error} />
      <button type="submit" className="primary" disabled={create.pending || !title.trim()}>
        {create.pending ? 'Creating…' : 'Start conversation'}
      </button>
    </form>
  );
}

function ResourceSelect(props: { label: string; resources?: Resource[]; routes?: Route[]; value: string; onChange: (id: string) => void }) {
  // Only what chats: an embedding model answers /v1/embeddings, not a conversation.
  const chatting = props.resources?.filter((r) => r.capabilities.chat);
  // A route the caller may call (GET /api/routes lists only those for a user) chats as a resource does (docs/routes.md).
  const routes = props.routes?.filter((r) => r.kind === 'chat') ?? [];
  const resourceOptions = chatting?.map((r) => (
    <option key={r.id} value={r.id}>
      {r.name} ({r.type}, {r.model_name})
    </option>
  ));
  return (
    <Field label={props.label} hint={chatting && chatting.length === 0 ? 'No resource that chats is InService yet: deploy one first.' : undefined}>
      {(id, hint) => (
        <select id={id} aria-describedby={hint} value={props.value} onChange={(e) => props.onChange(e.target.value)} required>
          <option value="">{chatting ? 'Choose a resource' : 'Loading resources…'}</option>
          {routes.length > 0 ? (
            <>
              <optgroup label="Resources">{resourceOptions}</optgroup>
              <optgroup label="Routes">
                {routes.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name} (route, {count(r.targets.length, 'target')})
                  </option>
                ))}
              </optgroup>
            </>
          ) : (
            resourceOptions
          )}
        </select>
      )}
    </Field>
  );
}

interface Thread {
  id: string | null;
  title: string;
  messages: Message[];
}

/** Threads (and the legacy messages) of a conversation, from its one conversation-wide listing. */
function groupThreads(messages: Message[]): Thread[] {
  const byId = new Map<string | null, Thread>();
  for (const m of messages) {
    const key = m.source === 'legacy' ? null : m.thread_id;
    let t = byId.get(key);
    if (!t) {
      t = { id: key, title: key === null ? 'Legacy messages (no thread)' : m.content.slice(0, 60) || 'Thread', messages: [] };
      byId.set(key, t);
    }
    t.messages.push(m);
  }
  // Newest thread first; legacy last.
  return [...byId.values()].sort((a, b) =>
    a.id === null ? 1 : b.id === null ? -1 : (b.messages.at(-1)?.timestamp ?? '').localeCompare(a.messages.at(-1)?.timestamp ?? ''),
  );
}

function ConversationView({ conversation, resources }: { conversation: Conversation; resources: Resource[] }) {
  const history = useQuery(
    () => unwrap(api.GET('/api/conversations/{id}/messages', { params: { path: { id: conversation.id }, query: { limit: 500 } } })),
    [conversation.id],
  );
  const usage = useQuery(() => unwrap(api.GET('/api/usage/current', { params: { query: { conversationId: conversation.id } } })), [conversation.id]);
  const [extra, setExtra] = useState<Message[]>([]);
  const [selected, setSelected] = useState<string | null>(); // a thread id, 'new' for a thread not started yet, null for none
  const messages = useMemo(() => [...(history.data?.messages ?? []), ...extra], [history.data, extra]);
  const threads = useMemo(() => groupThreads(messages), [messages]);
  const thread = selected === 'new' ? undefined : threads.find((t) => t.id === (selected === undefined ? threads[0]?.id : selected));
  const defaultResource = resources.find(
    (r) => r.name === conversation.deployed_resource.resource_name && r.type === conversation.deployed_resource.resource_type,
  );
  const routes = useQuery(() => unwrap(api.GET('/api/routes', { params: { query: { limit: 100 } } })), []);
  const [resourceId, setResourceId] = useState('');
  const chosen = resourceId || defaultResource?.id || '';
  const chosenRoute = routes.data?.routes.some((r) => r.id === chosen) ?? false;
  // A route has no prices of its own: a reply through one is priced as the resource that answered it.
  const facts = useResourceFacts(messages, chosenRoute ? '' : chosen);

  const send = useAction(async (text: string) => {
    const threadId = thread && thread.id !== null ? thread.id : undefined;
    const res = await unwrap(
      api.POST('/api/chat/thread', {
        body: { message: text, conversationId: conversation.id, resourceId: chosen, ...(threadId ? { threadId } : {}) },
      }),
    );
    const stamped = res.messages.map((m) => ({ ...m, source: 'thread' as const, thread_id: res.threadId }));
    setExtra((prev) => [...prev, ...stamped]);
    setSelected(res.threadId);
    void usage.reload();
    return res;
  });

  return (
    <article aria-labelledby="conversation-title">
      <header className="conversation-head">
        <h2 id="conversation-title">{conversation.title}</h2>
        <p className="hint">
          {conversation.use_case} · {conversation.deployed_resource.resource_name} ({conversation.deployed_resource.resource_type}) · started{' '}
          {dateTime(conversation.created_at)}
        </p>
        {usage.data ? (
          <p className="usage-line" aria-label="Conversation usage">
            This conversation: {usd(usage.data.mtd.cost_usd)} this month · {count(usage.data.mtd.tokens_total, 'token')} ·{' '}
            {count(usage.data.mtd.requests, 'request')}
          </p>
        ) : null}
        <ErrorText error={usage.error} />
      </header>
      {history.loading && !history.data ? <Spinner label="Loading messages…" /> : null}
      <ErrorText error={history.error} />
      <div className="threads" role="group" aria-label="Threads">
        {threads.map((t) => (
          <button key={t.id ?? 'legacy'} type="button" className="small" aria-pressed={thread?.id === t.id} onClick={() => setSelected(t.id)}>
            {t.title}
          </button>
        ))}
        <button type="button" className="small" aria-pressed={selected === 'new'} onClick={() => setSelected('new')}>
          New thread
        </button>
      </div>
      <ol className="messages" aria-label={thread ? (thread.id === null ? 'Legacy messages' : 'Thread messages') : 'New thread'} aria-live="polite">
        {(thread?.messages ?? []).map((m, i) => (
          <MessageItem
            key={`${m.timestamp}-${i}-${m.role}`}
            message={m}
            {...facts(thread?.messages[i - 1], conversation.deployed_resource.resource_name)}
          />
        ))}
      </ol>
      {thread?.id === null ? (
        <p className="hint">Legacy messages were sent without thread context; they can be read here. New messages go into threads.</p>
      ) : (
        <Composer
          resources={resources}
          routes={routes.data?.routes}
          resourceId={chosen}
          onResource={setResourceId}
          pending={send.pending}
          error={send.error}
          onSend={send.run}
        />
      )}
    </article>
  );
}

interface ResourceFacts {
  price: Price;
  name?: string;
}

/**
 * The resource that answered each reply (the one its user message named): its name, the reply's author,
 * and its prices, at which the reply is priced (its status, read once and cached).
 */
function useResourceFacts(
  messages: Message[],
  extraResource: string,
): (userMessage: Message | undefined, fallbackName: string) => { price: Price; author: string } {
  const [cache, setCache] = useState<Record<string, ResourceFacts | 'loading'>>({});
  const ids = useMemo(() => {
    const set = new Set<string>(extraResource ? [extraResource] : []);
    for (const m of messages) if (m.role === 'user' && m.metadata.resource_id) set.add(m.metadata.resource_id);
    return [...set];
  }, [messages, extraResource]);
  useEffect(() => {
    for (const id of ids) {
      if (cache[id] !== undefined) continue;
      setCache((c) => ({ ...c, [id]: 'loading' }));
      api.GET('/api/resources/{resourceId}/status', { params: { path: { resourceId: id } } }).then(
        ({ data }) => {
          const costs = data?.costs;
          const price: Price =
            costs?.pricing_model === 'token'
              ? { input: costs.per_1k_input_tokens_usd ?? 0, output: costs.per_1k_output_tokens_usd ?? 0 }
              : costs
                ? 'hourly'
                : undefined;
          setCache((c) => ({ ...c, [id]: { price, name: data?.resource.name } }));
        },
        () => setCache((c) => ({ ...c, [id]: { price: undefined } })),
      );
    }
  }, [ids, cache]);
  return (userMessage, fallbackName) => {
    const id = userMessage?.metadata.resource_id;
    const known = id ? cache[id] : undefined;
    const facts = known === 'loading' ? undefined : known;
    // A resource deleted since has no status to read: the conversation's own resource is the best guess.
    return { price: facts?.price, author: facts?.name ?? fallbackName };
  };
}

function MessageItem({ message: m, price, author }: { message: Message; price: Price; author: string }) {
  // The server's own charge (cache reads and writes, tiers and exact money included); never recomputed here.
  const cost = m.role === 'assistant' ? m.cost_usd : undefined;
  return (
    <li className={`message ${m.role}${m.status === 'failed' ? ' failed' : ''}`}>
      <p className="who">
        {m.role === 'user' ? (m.metadata.username ?? 'You') : author}
        {m.metadata.route_name ? <span className="hint"> via route {m.metadata.route_name}</span> : null}{' '}
        <time dateTime={m.timestamp}>{dateTime(m.timestamp)}</time>
      </p>
      {m.role === 'assistant' ? <Markdown text={m.content} /> : <div className="content">{m.content}</div>}
      {m.status === 'failed' ? <p className="error">The model did not answer this message.</p> : null}
      {m.role === 'assistant' && m.tokens_total !== undefined ? (
        <p className="figures" aria-label="Reply figures">
          <span>
            {int(m.tokens_in)} in + {int(m.tokens_out)} out = {count(m.tokens_total, 'token')}
          </span>
          {m.cache_read_tokens !== undefined ? (
            <span aria-label="Prompt cache">
              cache: {int(m.cache_read_tokens)} read, {int(m.cache_write_tokens ?? 0)} written ({usd(m.cache_cost_usd ?? 0)})
            </span>
          ) : null}
          <span>{ms(m.latency_ms)}</span>
          <span>{price === 'hourly' ? 'billed hourly (dedicated)' : cost !== undefined ? `cost ${usd(cost)}` : 'cost —'}</span>
        </p>
      ) : null}
    </li>
  );
}

function Composer(props: {
  resources: Resource[];
  routes?: Route[];
  resourceId: string;
  onResource: (id: string) => void;
  pending: boolean;
  error: unknown;
  onSend: (text: string) => Promise<unknown>;
}) {
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!text.trim() || props.pending) return;
    const res = await props.onSend(text);
    if (res) {
      setText('');
      input.current?.focus();
    }
  };
  return (
    <form className="composer form" onSubmit={submit}>
      <ResourceSelect label="Answer with" resources={props.resources} routes={props.routes} value={props.resourceId} onChange={props.onResource} />
      <Field label="Message" hint="Ctrl+Enter sends.">
        {(id, hint) => (
          <textarea
            id={id}
            ref={input}
            aria-describedby={hint}
            rows={3}
            value={text}
            maxLength={32000}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) void submit();
            }}
          />
        )}
      </Field>
      <ErrorText error={props.error} />
      <button type="submit" className="primary" disabled={props.pending || !text.trim() || !props.resourceId}>
        {props.pending ? 'Waiting for the reply…' : 'Send'}
      </button>
      {props.pending ? <Spinner label="The model is answering…" /> : null}
    </form>
  );
}
