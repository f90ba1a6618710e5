// Frame-time benchmarks (not tests), in Chromium on the mock build:
// 1. deltas streamed into a 1,000-message session for about 3 s;
// 2. a 64 KB Markdown answer (headings, paragraphs, lists, code) streamed
//    in 128-character deltas, one per frame, measured from 32 KB to its end.
// Each records the intervals between animation frames and prints one JSON
// line on stdout: {"p50_ms", "p95_ms", "max_ms", ...}.
// Run with `npm run bench:ui` (it builds the mock first).
import { launch, openApp, startServer } from './harness.mjs';

/** Percentiles of frame intervals, in ms. */
function figures(intervals) {
  const sorted = [...intervals].sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const r = (x) => Math.round(x * 100) / 100;
  const worst = intervals.indexOf(sorted[sorted.length - 1]);
  return { frames: sorted.length, p50_ms: r(q(0.5)), p95_ms: r(q(0.95)), max_ms: r(sorted[sorted.length - 1]), max_at_frame: worst };
}

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
  console.log(JSON.stringify({ bench: 'ui_stream_frame_time', session_messages: 1000, ...figures(intervals), streamed_chars: chars?.length ?? 0 }));
  await app.close();

  const long = await openApp(browser, server.url, '');
  await long.page.evaluate(() => (window.__hearthMock.config.slowDelayMs = 16));
  await long.page.getByTestId('new-session').click();
  const composer = long.page.getByTestId('composer-input');
  await composer.fill('long markdown');
  await composer.press('Enter');
  await long.page.waitForFunction(
    () => ([...document.querySelectorAll('[data-testid=message-assistant]')].pop()?.textContent?.length ?? 0) > 32_000,
    null,
    { timeout: 120_000 },
  );
  const longIntervals = await long.page.evaluate(
    () =>
      new Promise((resolve) => {
        const out = [];
        let last = performance.now();
        const step = (t) => {
          out.push(t - last);
          last = t;
          if (document.querySelector('[data-testid=stop-button]')) requestAnimationFrame(step);
          else resolve(out);
        };
        requestAnimationFrame(step);
      }),
  );
  const size = await long.page.getByTestId('message-assistant').last().getByTestId('markdown').evaluate((m) => m.textContent.length);
  console.log(JSON.stringify({ bench: 'ui_long_answer_frame_time', answer_kb: 64, measured_from_kb: 32, ...figures(longIntervals), rendered_chars: size }));
  await long.close();
} finally {
  await browser.close();
  await server.close();
}
