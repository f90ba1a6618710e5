// The one place the UI talks to the desktop shell. Components and stores
// import these functions and never touch `commands` or `Channel`
// themselves, so every command the page can reach is listed here.
// Commands that can fail resolve to `Result`; here they are unwrapped so
// callers get the value or a thrown `AppError` carrying the shell's
// `ErrorInfo` (code + how to recover).
import { Channel } from '@tauri-apps/api/core';
import { commands } from './bindings';
import type { AgentEvent, ApprovalDecision, AttachmentRef, ErrorInfo, PageEvent, PlanAnswer, Prefs, ProfileView, ProjectDraftView, UpdateProgress, Value, VoiceEvent, VoiceSource } from './bindings';

export type * from './bindings';
/** The wire format this page was built against (a `run_started` says the core's). */
export { PROTOCOL_VERSION } from './bindings';
/** Any JSON value (tool arguments). */
export type JsonValue = Value;
type Result<T, E> = { status: 'ok'; data: T } | { status: 'error'; error: E };

/** A failed command, with the shell's structured error. */
export class AppError extends Error {
  readonly info: ErrorInfo;
  constructor(info: ErrorInfo) {
    super(info.message);
    this.name = 'AppError';
    this.info = info;
  }
}

/** The ErrorInfo behind anything thrown by a command (or a local failure). */
export function errorInfo(e: unknown): ErrorInfo {
  if (e instanceof AppError) return e.info;
  return { code: 'internal', recovery: 'none', message: String(e), details: null };
}

async function ok<T>(p: Promise<Result<T, ErrorInfo>>): Promise<T> {
  const r = await p;
  if (r.status === 'error') throw new AppError(r.error);
  return r.data;
}

/** A channel that calls `onEvent` for each message the shell sends on it. */
function channel<T>(onEvent: (e: T) => void): Channel<T> {
  const ch = new Channel<T>();
  ch.onmessage = onEvent;
  return ch;
}

export const appInfo = () => ok(commands.appInfo());
/** What the shell says on its own (a clicked notice's session) goes to `onEvent`; one listener, the last one given. */
export const pageEvents = (onEvent: (e: PageEvent) => void) => commands.pageEvents(channel(onEvent));
export const getPrefs = () => commands.getPrefs();
export const setPrefs = (prefs: Prefs) => ok(commands.setPrefs(prefs));
export const openLink = (url: string) => ok(commands.openLink(url));
export const backendStatus = () => ok(commands.backendStatus());
export const setOllamaUrl = (url: string) => ok(commands.setOllamaUrl(url));
export const setOpenaiUrl = (url: string) => ok(commands.setOpenaiUrl(url));
/** Asks the update address for a newer Hearth; the shell keeps what it offers for `installUpdate`. */
export const checkUpdate = () => ok(commands.checkUpdate());
/** Installs `version` (the one the last check offered), its progress on `onProgress`; on success the app restarts into it. */
export const installUpdate = (version: string, onProgress: (p: UpdateProgress) => void) => ok(commands.installUpdate(version, channel(onProgress)));

export const listSessions = () => ok(commands.listSessions());
/** Full-text search over every session, or (`project`, an id) over a project's only. */
export const searchSessions = (q: string, project: string | null) => ok(commands.searchSessions(q, project));
export const newSession = () => commands.newSession();
export const openSession = (id: string) => ok(commands.openSession(id));
export const renameSession = (id: string, title: string) => ok(commands.renameSession(id, title));
export const deleteSession = (id: string) => ok(commands.deleteSession(id));
export const restoreSession = (id: string) => ok(commands.restoreSession(id));
/** Exports through the system's Save dialog: the path written, or null when the person cancelled. */
export const exportSession = (id: string, format: 'markdown' | 'json') =>
  ok(commands.exportSession(id, format));
/** Keeps a session's unsent composer text across restarts (empty: forgets it); false when too long to keep. */
export const saveUnsent = (id: string, text: string) => ok(commands.saveUnsent(id, text));
/** Saves an answer's artifact (SVG or HTML text, PNG base64) through the system's Save dialog: the path written, or null when cancelled. */
export const saveArtifact = (name: string, format: 'svg' | 'png' | 'html', data: string) => ok(commands.saveArtifact(name, format, data));
/** Imports another app's export picked in the system's Open dialog: what it did, or null when the person cancelled. */
export const importFile = () => ok(commands.importFile());
/** The system's folder dialog for a profile's workspace: the chosen folder, or null when cancelled. */
export const chooseWorkspace = (start: string | null) => ok(commands.chooseWorkspace(start));
export const switchBranch = (id: string, messageId: number) => ok(commands.switchBranch(id, messageId));
/** The spans of the run that wrote an answer; null when none were recorded. */
export const runTrace = (runId: string) => ok(commands.runTrace(runId));

/** Starts a turn; its events arrive on `onEvent` until its terminal event. */
export const sendMessage = (id: string, text: string, attachments: AttachmentRef[], onEvent: (e: AgentEvent) => void) =>
  ok(commands.sendMessage(id, text, attachments, channel(onEvent)));
/** Keeps a file attached in the composer (`data`: its bytes, base64); what it is to the model. */
export const attachFile = (name: string, data: string) => ok(commands.attachFile(name, data));
/** An attached file as a `data:` URL (a thumbnail, a text file opened again). */
export const attachmentData = (sha256: string) => ok(commands.attachmentData(sha256));
export const regenerate = (id: string, messageId: number | null, onEvent: (e: AgentEvent) => void) =>
  ok(commands.regenerate(id, messageId, channel(onEvent)));
export const editAndResend = (
  id: string,
  messageId: number,
  text: string,
  onEvent: (e: AgentEvent) => void,
) => ok(commands.editAndResend(id, messageId, text, channel(onEvent)));
/** Follows a session's run from after event `afterSeq`: the events after it, then live ones; false when none is going. */
export const followRun = (id: string, afterSeq: number, onEvent: (e: AgentEvent) => void) =>
  commands.followRun(id, afterSeq, channel(onEvent));
export const stopRun = (runId: string) => commands.stopRun(runId);
export const queueMessage = (id: string, text: string) => ok(commands.queueMessage(id, text));
export const cancelQueued = (id: string, queueId: string) => commands.cancelQueued(id, queueId);
/** Answers a tool's approval request; false when it no longer waits. */
export const approve = (requestId: string, decision: ApprovalDecision) => commands.approve(requestId, decision);
/** Answers a `/plan` plan: run it (as edited), or cancel. False when it is no longer waiting. */
export const answerPlan = (requestId: string, answer: PlanAnswer) => commands.answerPlan(requestId, answer);

export const listProfiles = () => ok(commands.listProfiles());
export const saveProfile = (p: ProfileView, previousName: string | null) =>
  ok(commands.saveProfile(p, previousName));
export const deleteProfile = (name: string) => ok(commands.deleteProfile(name));
export const setDefaultProfile = (name: string) => ok(commands.setDefaultProfile(name));
export const setPersona = (persona: string) => ok(commands.setPersona(persona));
export const switchProfile = (id: string, name: string) => ok(commands.switchProfile(id, name));
/** Makes a session use `model` (null: its profile's) from its next answer; the profile is unchanged. */
export const setSessionModel = (id: string, model: string | null) => ok(commands.setSessionModel(id, model));
export const setSessionHost = (id: string, host: string | null, model: string | null) => ok(commands.setSessionHost(id, host, model));
export const listHosts = () => ok(commands.listHosts());
/** `apiKey`: an OpenAI-compatible server's, kept in the desktop's secret store; `null` keeps the host's. */
export const addHost = (name: string, kind: 'ollama' | 'openai', url: string, apiKey: string | null) => ok(commands.addHost(name, kind, url, apiKey));
export const removeHost = (name: string) => ok(commands.removeHost(name));

export const listMcpServers = () => ok(commands.listMcpServers());
export const saveMcpConfig = (config: string) => ok(commands.saveMcpConfig(config));
export const restartMcpServer = (name: string) => ok(commands.restartMcpServer(name));
export const mcpServerLog = (name: string) => ok(commands.mcpServerLog(name));
// MCP apps (MCP Apps, SEP-1865: components/McpAppView.svelte, lib/mcpApps.ts):
// what an MCP tool call's app shows, and what the app asks of the server
// through Hearth. Each names the run and the call whose app asks.
/** The app of a call (its HTML, the call's arguments and result); null when the tool has none. */
export const mcpAppView = (runId: string, callId: string) => ok(commands.mcpAppView(runId, callId));
/** A tool of its own server the app asks to call (the person is asked first): an MCP CallToolResult. */
export const mcpAppCallTool = (runId: string, callId: string, name: string, args: JsonValue) => ok(commands.mcpAppCallTool(runId, callId, name, args));
/** A resource of the app's own server the app asks for: an MCP ReadResourceResult. */
export const mcpAppReadResource = (runId: string, callId: string, uri: string) => ok(commands.mcpAppReadResource(runId, callId, uri));
/** A link the app asks to open in the browser (the person is asked first). */
export const mcpAppOpenLink = (runId: string, callId: string, url: string) => ok(commands.mcpAppOpenLink(runId, callId, url));
/** What the app logs, into the server's log. */
export const mcpAppLog = (runId: string, callId: string, level: string, text: string) => commands.mcpAppLog(runId, callId, level, text);
export const listSkills = () => ok(commands.listSkills());
export const showHooks = () => ok(commands.showHooks());
export const listMemories = () => ok(commands.listMemories());
export const memoryHistory = (id: number) => ok(commands.memoryHistory(id));
export const addMemory = (content: string) => ok(commands.addMemory(content));
/** Declines a proposed fact: it is never proposed again. */
export const declineMemory = (content: string) => ok(commands.declineMemory(content));
export const editMemory = (id: number, content: string) => ok(commands.editMemory(id, content));
export const deleteMemory = (id: number) => ok(commands.deleteMemory(id));
export const memorySummary = () => ok(commands.memorySummary());
export const listSummaries = (sessionId: string | null) => ok(commands.listSummaries(sessionId));
export const editSummary = (id: number, content: string) => ok(commands.editSummary(id, content));
export const deleteSummary = (id: number) => ok(commands.deleteSummary(id));

export const listModels = () => ok(commands.listModels());
export const runningModels = () => ok(commands.runningModels());
/** Deletes a model from the server's disk. */
export const deleteModel = (model: string) => ok(commands.deleteModel(model));
export const checkModelSettings = (model: string, numCtx: number, keepAlive: number) =>
  ok(commands.checkModelSettings(model, numCtx, keepAlive));
export const setModelSettings = (model: string, numCtx: number, keepAlive: number) =>
  ok(commands.setModelSettings(model, numCtx, keepAlive));
export const preloadModel = (model: string) => ok(commands.preloadModel(model));
export const unloadModel = (model: string) => ok(commands.unloadModel(model));
/** Queues a pull (false: one of it is already queued or running). */
export const startPull = (model: string) => ok(commands.startPull(model));
export const cancelPull = (model: string) => commands.cancelPull(model);
export const listPulls = () => commands.listPulls();

export const voiceStart = (source: VoiceSource, onEvent: (e: VoiceEvent) => void) => ok(commands.voiceStart(source, channel(onEvent)));
export const voiceStop = () => ok(commands.voiceStop());
export const voiceStatus = () => ok(commands.voiceStatus());
/** Reads an answer aloud from its start (what was being read stops first). */
export const speakText = (text: string) => ok(commands.speakText(text));
export const stopSpeaking = () => ok(commands.stopSpeaking());
export const speakingStatus = () => ok(commands.speakingStatus());

/** The knowledge folders, the embedding model and the sync now. */
export const knowledgeStatus = () => ok(commands.knowledgeStatus());
/** The system's folder dialog for a knowledge folder: the chosen folder, or null when cancelled. */
export const knowledgeChooseFolder = () => ok(commands.knowledgeChooseFolder());
/** Adds a knowledge folder (for every chat, or `project`'s chats only) and starts a sync in the background. */
export const knowledgeAddFolder = (path: string, project: string | null = null) => ok(commands.knowledgeAddFolder(path, project));
/** Forgets a folder and its passages (the files stay); refused while a sync runs. */
export const knowledgeRemoveFolder = (path: string) => ok(commands.knowledgeRemoveFolder(path));
/** A folder's files left out, as `[file, why]` (at most 200). */
export const knowledgeSkipped = (path: string) => ok(commands.knowledgeSkipped(path));
/** Chooses the embedding model (blank: none, search by words only); a model starts a sync. */
export const knowledgeSetModel = (model: string) => ok(commands.knowledgeSetModel(model));
/** Starts a sync (nothing when one is going on). */
export const knowledgeSync = () => ok(commands.knowledgeSync());
export const knowledgeStopSync = () => ok(commands.knowledgeStopSync());
/** Passages for `query`, by words and meaning fused. */
export const knowledgeSearch = (query: string) => ok(commands.knowledgeSearch(query));
/** What an answer drew on from the knowledge folders: its passages, which it cites, its quotations checked (empty lists: none). */
export const answerSources = (sessionId: string, messageId: number) => ok(commands.answerSources(sessionId, messageId));
/** A source's passage as the index holds it now; null when its file changed and no passage has those lines. */
export const knowledgePassage = (path: string, startLine: number, endLine: number) => ok(commands.knowledgePassage(path, startLine, endLine));
/** Turns on or off the best passages sent with each message of a chat (a profile without tools). */
export const setSessionKnowledge = (sessionId: string, on: boolean) => ok(commands.setSessionKnowledge(sessionId, on));

// Projects (docs/projects.md): chats grouped, with the workspace, profile,
// model, instructions and knowledge folders they share.
/** Every project, by name, with how many chats it holds and its own knowledge folders. */
export const listProjects = () => ok(commands.listProjects());
export const createProject = (draft: ProjectDraftView) => ok(commands.createProject(draft));
/** Writes every field of the draft (a blank one clears it). */
export const updateProject = (id: string, draft: ProjectDraftView) => ok(commands.updateProject(id, draft));
/** Its chats move out of it; its knowledge folders leave the index (the files stay). Refused while a knowledge sync runs. */
export const deleteProject = (id: string) => ok(commands.deleteProject(id));
/** Puts a session in `project` (null: in none); refused while an answer is being written in it. A fresh id is made a session. */
export const moveSession = (sessionId: string, project: string | null) => ok(commands.moveSession(sessionId, project));
/** Exports a project through the system's Save dialog: the path written, or null when cancelled. */
export const exportProject = (id: string, format: 'markdown' | 'json') => ok(commands.exportProject(id, format));
