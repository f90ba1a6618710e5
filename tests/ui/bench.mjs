// Frame-time benchmark (not a test): streams deltas into a 1,000-message
// session for about 3 s and records the intervals between animation
// frames. Prints one JSON line on stdout: {"p50_ms", "p95_ms", "max_ms", ...}.
// Run with `npm run bench:ui` (it builds the mock first).
import { launch, openApp, startServer } from './harness.mjs';

const server = await startServer();
const browser = await launch();
try {
  const app = await openApp(browser, server.url, 'big=1000');
  const { page } = app;
  await page.getByTestId('message-assistant').filter({ hasText: 'Answer #999' }).waitFor();
  await page.evaluate(() => {
    window.__hearthMock.config.slowDelayMs = 12; // ~80 deltas/s, 300 deltas outlast the 3 s
  });
  const input = page.getByTestId('composer-input');
  await input.fill('slow benchmark');
  await input.press('Enter');
  await page.getByTestId('stop-button').waitFor();
  const intervals = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const out = [];
        let last = performance.now();
        const end = last + 3000;
        const step = (t) => {
          out.push(t - last);
          last = t;
          if (t < end) requestAnimationFrame(step);
          else resolve(out);
        };
        requestAnimationFrame(step);
      }),
  );
  const chars = await page.getByTestId('message-assistant').last().textContent();
  await page.getByTestId('stop-button').click().catch(() => {});
  const sorted = [...intervals].sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const r = (x) => Math.round(x * 100) / 100;
  console.log(
    JSON.stringify({
      bench: 'ui_stream_frame_time',
      session_messages: 1000,
      frames: sorted.length,
      p50_ms: r(q(0.5)),
      p95_ms: r(q(0.95)),
      max_ms: r(sorted[sorted.length - 1]),
      streamed_chars: chars?.length ?? 0,
    }),
  );
  await app.close();
} finally {
  await browser.close();
  await server.close();
}
