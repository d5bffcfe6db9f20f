import { ApiError } from '../../api-client.js';
import { h } from '../../dom.js';

/**
 * What every card of the Settings page is: its section (drawn at once with a spinner, filled when its data
 * arrives) and how it loads. The cards with fields save through the page's one save bar
 * (components/save-bar-form.ts).
 */
export interface SettingsCard {
  section: HTMLElement;
  /** Loads the card's data and draws it; a failure is drawn in the section, never thrown. */
  load(): Promise<void>;
}

/** A card's section: its heading, its id (`?section=` scrolls to it), a spinner until it is drawn. */
export function cardSection(id: string, heading: string, loading: string): HTMLElement {
  const section = h('s-section', { heading }, h('s-spinner', { accessibilityLabel: `Loading ${loading}` }));
  section.id = id;
  return section;
}

/**
 * Puts a refused save's issues (a 400's `{ field, message }`) on their fields: `place` answers whether it
 * placed one. Answers true when something is left unsaid (an issue not placed, or another failure), for
 * the caller's toast.
 */
export function placeIssues(
  error: unknown,
  place: (issue: { field: string; message: string }) => boolean,
): boolean {
  if (!(error instanceof ApiError) || error.issues.length === 0) return true;
  let unplaced = false;
  for (const issue of error.issues) if (!place(issue)) unplaced = true;
  return unplaced;
}
