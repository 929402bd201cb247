// History routing under /console/: navigate() pushes a URL and tells the shell to render it.
export const BASE = '/console';
const EVENT = 'signet-console:navigate';

export function navigate(url: string): void {
  if (url !== location.pathname + location.search) history.pushState(null, '', url);
  window.dispatchEvent(new Event(EVENT));
}

/** Calls `listener` on every navigation (navigate(), back and forward); returns the unsubscribe. */
export function onNavigate(listener: () => void): () => void {
  window.addEventListener(EVENT, listener);
  window.addEventListener('popstate', listener);
  return () => {
    window.removeEventListener(EVENT, listener);
    window.removeEventListener('popstate', listener);
  };
}

/** The path's segments after /console/ (['activities', '<id>']); [] for /console itself. */
export function segments(pathname: string): string[] {
  if (pathname !== BASE && !pathname.startsWith(BASE + '/')) return [];
  return pathname
    .slice(BASE.length)
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part));
}
