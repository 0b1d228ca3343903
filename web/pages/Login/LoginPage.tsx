import { Alert, Button, Card, Center, Divider, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { M } from '../../../common/messages';
import { loginSchema } from '../../../common/schemas/auth';
import { login } from '../../api/auth';
import { messageOf } from '../../api/client';
import { useSession } from '../../session/SessionProvider';
import { useSchemaForm } from '../../lib/schemaForm';

// A field's message is announced as it appears, as the sign-in failure is.
const ERROR_PROPS = { errorProps: { role: 'alert' } };

export function LoginPage() {
  const { establish } = useSession();
  const navigate = useNavigate();
  const form = useSchemaForm(loginSchema, { email: '', password: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(() => new URLSearchParams(window.location.search).get('error'));

  const submit = async ({ email, password }: typeof form.values) => {
    setError(null);
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
          <form
            id="login-form"
            onSubmit={form.onSubmit(
              (values) => void submit(values),
              () => setError(null),
            )}
            noValidate
          >
            <Stack gap="md">
              <TextInput label="Email" type="email" autoComplete="username" required {...form.getInputProps('email')} {...ERROR_PROPS} autoFocus />
              <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} {...ERROR_PROPS} />
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
