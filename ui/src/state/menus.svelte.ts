// Which of the header's menus is open, and the command palette: one place,
// so a shortcut, the palette and the menus' own buttons open the same
// thing (and opening one closes the others).
export type Menu = 'model' | 'profile' | 'palette' | null;

class MenusState {
  open = $state<Menu>(null);

  toggle(m: Exclude<Menu, null>): void {
    this.open = this.open === m ? null : m;
  }

  /** A binding for a menu's `bind:open`. */
  is(m: Exclude<Menu, null>): boolean {
    return this.open === m;
  }

  set(m: Exclude<Menu, null>, on: boolean): void {
    if (on) this.open = m;
    else if (this.open === m) this.open = null;
  }
}

export const menus = new MenusState();
