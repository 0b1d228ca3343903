import { Alert, Button, FileInput, Group, Loader, Progress, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { M } from '../../../common/messages';
import { IMPORT_EXTENSION } from '../../../common/limits';
import { SLUG_PATTERN } from '../../../common/slug';
import { ApiError, messageOf } from '../../api/client';
import { serviceKeys } from '../../api/services';
import { previewCatalog, uploadCatalog } from '../../api/settings';
import { useSession } from '../../session/SessionProvider';
import { CatalogModal } from '../../components/CatalogModal';
import { ServiceSlugInput } from '../../components/ServiceSlugInput';

type FieldErrors = Partial<Record<'name' | 'slug', string>>;

/** The field a refusal names (400 names it; a taken slug is a 409 about the slug). */
function fieldOf(err: unknown): 'name' | 'slug' | null {
  if (!(err instanceof ApiError)) return null;
  const field = (err.body as { field?: unknown } | null)?.field;
  if (field === 'name' || field === 'slug') return field;
  return err.status === 409 && err.message === M.slugTaken ? 'slug' : null;
}

/**
 * 'Import' on the dashboard (admins): choose a .catalog file; the server reads it and proposes its
 * name and slug, or free ones when the tenant already has them; then upload it with progress under
 * the name and slug chosen, and open the new service.
 */
export function ImportServiceButton() {
  const { user } = useSession();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [opened, setOpened] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [naming, setNaming] = useState<{ name: string; slug: string } | null>(null);
  const [reading, setReading] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  // Only the answer for the file chosen last fills the fields.
  const chosen = useRef(0);

  const canImport = Boolean(user?.permissions?.canCreateServices);
  if (!canImport) return null;

  const close = () => {
    if (progress !== null) return;
    chosen.current++;
    setOpened(false);
    setFile(null);
    setNaming(null);
    setReading(false);
    setErrors({});
    setError(null);
  };

  const choose = async (next: File | null) => {
    const turn = ++chosen.current;
    setFile(next);
    setNaming(null);
    setErrors({});
    if (!next || !next.name.toLowerCase().endsWith(IMPORT_EXTENSION)) {
      setError(next ? M.invalidCatalogFile : null);
      return;
    }
    setError(null);
    setReading(true);
    try {
      const preview = await previewCatalog(next);
      if (turn !== chosen.current) return;
      setNaming({ name: preview.proposed_name, slug: preview.proposed_slug });
    } catch (err) {
      if (turn === chosen.current) setError(messageOf(err, M.failedImportService));
    } finally {
      if (turn === chosen.current) setReading(false);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file || !file.name.toLowerCase().endsWith(IMPORT_EXTENSION)) return setError(M.invalidCatalogFile);
    const next: FieldErrors = {};
    if (naming && !naming.name.trim()) next.name = M.serviceNameRequired;
    if (naming && !naming.slug.trim()) next.slug = M.slugRequired;
    else if (naming && !SLUG_PATTERN.test(naming.slug)) next.slug = M.slugPattern;
    setErrors(next);
    if (next.name || next.slug) return;
    setError(null);
    setProgress(0);
    try {
      // Without a preview (the file could not be read), the server's own answer says why.
      const service = await uploadCatalog(file, setProgress, naming ? { name: naming.name.trim(), slug: naming.slug } : {});
      await client.invalidateQueries({ queryKey: serviceKeys.all });
      setProgress(null);
      setOpened(false);
      navigate(`/catalog/${service.id}`);
    } catch (err) {
      setProgress(null);
      const field = fieldOf(err);
      if (field) setErrors({ [field]: messageOf(err) });
      else setError(messageOf(err, M.failedImportService));
    }
  };

  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        Import
      </Button>
      <CatalogModal opened={opened} onClose={close} title="Import Service">
        <form onSubmit={(e) => void submit(e)} noValidate>
          <Stack gap="md">
            <FileInput
              label="Service file (.catalog)"
              placeholder="Choose a .catalog file"
              accept={IMPORT_EXTENSION}
              value={file}
              onChange={(next) => void choose(next)}
              clearable={false}
              data-autofocus
            />
            {reading ? (
              <Group gap="xs" role="status">
                <Loader size="xs" aria-hidden="true" />
                <Text size="sm">Reading the file...</Text>
              </Group>
            ) : null}
            {naming ? (
              <>
                <TextInput
                  label="Name"
                  required
                  value={naming.name}
                  onChange={(e) => {
                    const name = e.currentTarget.value;
                    setNaming((n) => (n ? { ...n, name } : n));
                  }}
                  error={errors.name}
                />
                <ServiceSlugInput value={naming.slug} onChange={(slug) => setNaming((n) => (n ? { ...n, slug } : n))} error={errors.slug} />
              </>
            ) : null}
            {progress !== null ? (
              <Stack gap={4}>
                <Progress value={progress} aria-label="Upload progress" />
                <Text size="xs" c="dimmed" role="status">
                  {progress < 100 ? `Uploading... ${progress}%` : 'Importing...'}
                </Text>
              </Stack>
            ) : null}
            {error ? (
              <Alert color="red" role="alert" variant="light" c="red.9">
                {error}
              </Alert>
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={progress !== null}>
                Cancel
              </Button>
              <Button type="submit" loading={progress !== null} disabled={reading}>
                Import
              </Button>
            </Group>
          </Stack>
        </form>
      </CatalogModal>
    </>
  );
}
