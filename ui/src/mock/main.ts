// Entry of the mock build used by tests/ui: installs a scriptable fake
// backend behind Tauri's IPC, then starts the real app unchanged.
import { mockIPC } from '@tauri-apps/api/mocks';
import { MockBackend } from './backend';

const backend = new MockBackend(new URLSearchParams(location.search));
(window as unknown as { __hearthMock: MockBackend }).__hearthMock = backend;
mockIPC((cmd, args) => backend.handle(cmd, (args ?? {}) as Record<string, unknown>), { shouldMockEvents: true });
void import('../main');
