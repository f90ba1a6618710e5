// Sets inline styles through the CSSOM. The app's CSP (style-src 'self')
// blocks `style="…"` in markup and setAttribute('style'), but allows
// element.style.setProperty, so every dynamic style goes through here.
import type { Action } from 'svelte/action';

export type StyleProps = Record<string, string | null | undefined>;

function apply(node: HTMLElement, props: StyleProps, prev: StyleProps): void {
  for (const name of Object.keys(prev)) {
    if (!(name in props)) node.style.removeProperty(name);
  }
  for (const [name, value] of Object.entries(props)) {
    if (value == null) node.style.removeProperty(name);
    else node.style.setProperty(name, value);
  }
}

/** `use:css={{ height: '20px' }}` */
export const css: Action<HTMLElement, StyleProps> = (node, props) => {
  let prev: StyleProps = {};
  apply(node, props ?? {}, prev);
  prev = props ?? {};
  return {
    update(next: StyleProps) {
      apply(node, next, prev);
      prev = next;
    },
  };
};
