// The GraphQL UI with the console's session: the console keeps its sign-in in sessionStorage (same origin, so this
// page reads it; console/src/session.ts writes it under the same key). This script runs before GraphiQL and wraps
// fetch so every request to /graphql carries `Authorization: Bearer <access token>`. Without a live session (none,
// expired, or a 401 from /graphql) it sends the browser to the console's sign-in, which comes back here afterwards.
// The GraphQL UI page has no CSP (GraphiQL itself is inline script), so the script is inline too.
export const CONSOLE_SESSION_KEY = 'workflow-index.session';
export const CONSOLE_RETURN_KEY = 'workflow-index.return-to';

const script = (sessionKey: string, returnKey: string): string => `(function () {
  var signingIn = false;
  function session() {
    try {
      var s = JSON.parse(sessionStorage.getItem(${JSON.stringify(sessionKey)}) || 'null');
      return s && typeof s.accessToken === 'string' && s.expiresAt > Date.now() ? s : null;
    } catch (e) { return null; }
  }
  function signIn() {
    if (signingIn) return;
    signingIn = true;
    sessionStorage.removeItem(${JSON.stringify(sessionKey)});
    sessionStorage.setItem(${JSON.stringify(returnKey)}, location.pathname + location.search);
    location.replace('/q/console/');
  }
  if (session() === null) signIn();
  var original = window.fetch.bind(window);
  window.fetch = function (input, init) {
    var request = new Request(input, init);
    var url = new URL(request.url);
    if (url.origin !== location.origin || url.pathname !== '/graphql') return original(request);
    var s = session();
    if (s === null) { signIn(); return new Promise(function () {}); }
    request.headers.set('Authorization', 'Bearer ' + s.accessToken);
    return original(request).then(function (response) {
      if (response.status === 401) signIn();
      return response;
    });
  };
})();`;

export const GRAPHIQL_SESSION_SCRIPT = script(CONSOLE_SESSION_KEY, CONSOLE_RETURN_KEY);
