// Entry of the mock build used by tests/ui: installs a scriptable fake
// backend behind Tauri's IPC, then starts the real app unchanged.
import { mockIPC } from '@tauri-apps/api/mocks';
import { renderMarkdown } from '../lib/markdown';
import { LiveMarkdown } from '../lib/settledMarkdown';
import { MockBackend } from './backend';
import { longMarkdown } from './pickScript';

const backend = new MockBackend(new URLSearchParams(location.search));
(window as unknown as { __hearthMock: MockBackend }).__hearthMock = backend;
// The renderers, for tests that compare incremental and whole rendering.
(window as unknown as { __hearthMarkdown: unknown }).__hearthMarkdown = { renderMarkdown, LiveMarkdown, longMarkdown };
mockIPC((cmd, args) => backend.handle(cmd, (args ?? {}) as Record<string, unknown>), { shouldMockEvents: true });
void import('../main');
