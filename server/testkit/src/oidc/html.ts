// The few HTML pages the test issuer serves itself: the login form, error and logout pages.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A whole page around `body` (already HTML). */
export function htmlPage(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
}

/** The login form of an interaction: posts `login` (the account id) and `password` (not checked). */
export function loginForm(action: string, problem?: string): string {
  const message = problem === undefined ? '' : `<p role="alert">${escapeHtml(problem)}</p>`;
  return htmlPage('Sign in', `<h1>Sign in</h1>${message}<form method="post" action="${escapeHtml(action)}">`
    + '<label>Account <input name="login" autocomplete="username" required autofocus></label> '
    + '<label>Password <input name="password" type="password" autocomplete="current-password"></label> '
    + '<button type="submit">Sign in</button></form>');
}
