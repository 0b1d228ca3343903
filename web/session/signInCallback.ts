import { M } from '../../common/messages';
import type { LoginAnswer } from '../api/auth';
import { errorText } from '../api/client';
import { toSessionUser } from './SessionProvider';
import { storage } from '../api/storage';

const CODE_PARAM = 'auth_token';
const DATA_PARAM = 'auth_data';

/**
 * The Microsoft sign-in hand-off (spec section 7, CONTRACT section 5): the server's callback lands
 * on /?auth_token=<one-time code>&auth_data=<JSON>. The query is cleared at once; the code is
 * exchanged from this browser (its sign-in cookie goes along) for the session, which is stored
 * before the app renders. A failed exchange is only logged (spec section 8): with no session the
 * guards send the person to /login.
 */
export async function completeSignInCallback(): Promise<void> {
  const params = new URLSearchParams(window.location.search);
  const code = params.get(CODE_PARAM);
  if (!params.has(CODE_PARAM) && !params.has(DATA_PARAM)) return;
  params.delete(CODE_PARAM);
  params.delete(DATA_PARAM);
  const rest = params.toString();
  window.history.replaceState(window.history.state, '', `${window.location.pathname}${rest ? `?${rest}` : ''}${window.location.hash}`);
  // The router read the address when it was created; let it see the cleared one.
  window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
  if (!code) return;

  try {
    const res = await fetch('/api/auth/exchange', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const body: unknown = await res.json().catch(() => null);
    if (!res.ok) throw new Error(errorText(body, M.loginFailed));
    const answer = body as LoginAnswer;
    storage.setToken(answer.token);
    storage.setUser(toSessionUser(answer));
    if (answer.tenant) storage.setActiveTenant(answer.tenant);
    else storage.clearActiveTenant();
  } catch (err) {
    console.error('Microsoft sign-in could not be completed:', err instanceof Error ? err.message : err);
  }
}
