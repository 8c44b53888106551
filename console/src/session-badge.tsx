// Who is signed in, and "Sign out" (AUTH_MODE=oidc); nothing without sign-in.
import { signOut } from './oidc-client.ts';
import { readSession } from './session.ts';
import { signInSettings } from './sign-in-settings.ts';

export function SessionBadge() {
  const settings = signInSettings();
  const session = readSession();
  if (settings.mode !== 'oidc' || session === null) return null;
  return (
    <div class="session">
      <span class="session-name" data-testid="signed-in-as" title="Signed in">
        {session.name}
      </span>
      <button type="button" class="sign-out" onClick={() => void signOut(settings)}>
        Sign out
      </button>
    </div>
  );
}
