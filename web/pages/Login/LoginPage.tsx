import { Alert, Button, Card, Center, Divider, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { M } from '../../../common/messages';
import { EMAIL_PATTERN } from '../../../common/schemas/fields';
import { login } from '../../api/auth';
import { messageOf } from '../../api/client';
import { useSession } from '../../session/SessionProvider';

export function LoginPage() {
  const { establish } = useSession();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(() => new URLSearchParams(window.location.search).get('error'));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!email.trim() || !password) return setError(M.emailPasswordRequired);
    if (!EMAIL_PATTERN.test(email.trim())) return setError(M.invalidEmail);
    setBusy(true);
    try {
      const answer = await login(email.trim(), password);
      establish(answer.token, answer);
      navigate('/', { replace: true });
    } catch (err) {
      setError(messageOf(err, M.loginFailed));
      setBusy(false);
    }
  };

  return (
    <Center component="main" id="main-content" tabIndex={-1} className="login-page">
      <a className="skip-link" href="#login-form">
        Skip to main content
      </a>
      <Card withBorder shadow="sm" radius="md" p="xl" w="100%" maw={420}>
        <Stack gap="lg">
          <Stack gap={4}>
            <Title order={1} size="h2">
              Service Catalog
            </Title>
            <Text c="dimmed" size="sm">
              Sign in to plan and publish your services.
            </Text>
          </Stack>
          {error ? (
            <Alert color="red" role="alert" title="Sign-in failed">
              {error}
            </Alert>
          ) : null}
          <form id="login-form" onSubmit={submit} noValidate>
            <Stack gap="md">
              <TextInput
                label="Email"
                type="email"
                autoComplete="username"
                required
                value={email}
                onChange={(e) => setEmail(e.currentTarget.value)}
                autoFocus
              />
              <PasswordInput
                label="Password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
              />
              <Button type="submit" fullWidth disabled={busy}>
                {busy ? 'Logging in...' : 'Log In'}
              </Button>
            </Stack>
          </form>
          <Divider label="OR" labelPosition="center" />
          <Button variant="default" fullWidth component="a" href="/api/auth/entra/signin">
            Sign in with Microsoft
          </Button>
        </Stack>
      </Card>
    </Center>
  );
}
