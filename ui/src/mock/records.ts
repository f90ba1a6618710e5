// The mock backend's records: sessions with their branches and sub-agent
// transcripts, stored messages, and runs with their events and followers.
import type { AnswerShownView, AgentEvent, MessageView, SubagentView } from '../bindings';
import type { Body, Step } from './scripts';
import type { ShownText } from './liveSanitize';
import type { ThinkSplitState } from './thinkTags';

export interface ChannelLike {
  id: number;
}
export interface Msg extends MessageView {
  session: string;
}
/**
 * A stored transcript with where it hangs, as the store keeps it (the
 * shell's SubagentView is to carry these; read defensively by the UI).
 */
export type StoredSubagent = SubagentView;
export interface Sess {
  id: string;
  title: string;
  profile: string;
  /** The model picker's choice for this session (null: the profile's model). */
  model?: string | null;
  /** The host it stays on (null: none yet). */
  host?: string | null;
  /** The project it is in (an id; null or absent: none). */
  project?: string | null;
  leaf: number | null;
  /** What its composer held and did not send (`save_unsent`). */
  unsent?: string | null;
  /** Each message carries the best knowledge passages (`set_session_knowledge`, mock/sources.ts). */
  knowledge?: boolean;
  switches: { profile: string; after_message_id: number | null; at: number }[];
  /** Transcripts of sub-agents, kept with the parent's turn. */
  subagents: StoredSubagent[];
  /** What stored answers showed (seeded; a run played here keeps its own events). */
  shown?: AnswerShownView[];
  deleted: boolean;
  created_at: number;
  updated_at: number;
}
export interface Run {
  id: string;
  session: string;
  prompt: string | null;
  events: AgentEvent[];
  timers: ReturnType<typeof setTimeout>[];
  channel: ChannelLike;
  index: number;
  /** Pages following the run (follow_run), each with its next message index. */
  followers: { ch: ChannelLike; index: number }[];
  /** The inline-reasoning splitter of each agent of the run (by run id). */
  think: Map<string, ThinkSplitState>;
  /** The shown text of each agent's current answer (by run id). */
  shown: Map<string, ShownText>;
  text: string;
  parent: number | null;
  queue: { queue_id: string; text: string; at: number }[];
  done: boolean;
  model: string;
  /** The host the run went to ('ollama': the default server). */
  host: string;
  /** Ended by a crash repair, not by its own end (a test sets it, as the core's recovery would). */
  cutOff?: boolean;
  startedAt: number;
  endedAt: number | null;
  /** Events waiting for `step()` (config.stepped). */
  held: Body[];
  /** Its first events (run_started, the prompt it stored) not sent yet: a Stop that comes before them sends them first. */
  opening: Body[];
  /** The approval the run waits on, and how it goes on after each answer. */
  /** The question the run waits on; `call`: the top-level call it asks about (a Stop cuts that call's result, as the core's). */
  gate: { request_id: string; scope: Partial<AgentEvent>; allow: Step[]; deny: Step[]; plan?: (edited: string | null) => Step[]; call?: { id: string; name: string; arguments: unknown } } | null;
}
