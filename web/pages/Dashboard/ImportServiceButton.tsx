import { Alert, Button, FileInput, Group, Loader, Progress, Stack, Text, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { flushSync } from 'react-dom';
import { useNavigate } from 'react-router';
import { M } from '../../../common/messages';
import { IMPORT_EXTENSION } from '../../../common/limits';
import { importNamingSchema } from '../../../common/schemas/services';
import { ApiError, messageOf } from '../../api/client';
import { serviceKeys } from '../../api/services';
import { previewCatalog, uploadCatalog } from '../../api/settings';
import { useSession } from '../../session/SessionProvider';
import { CatalogModal, ModalCancelButton } from '../../components/CatalogModal';
import { ServiceSlugInput } from '../../components/ServiceSlugInput';
import { useSchemaForm } from '../../lib/schemaForm';
import { DONE, notifySuccess } from '../../lib/notify';

const NO_NAMING = { name: '', slug: '' };

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
  // The name and slug the server proposed for the file, checked as the import checks them.
  const [proposed, setProposed] = useState(false);
  const naming = useSchemaForm(importNamingSchema, NO_NAMING);
  const [reading, setReading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  // Only the answer for the file chosen last fills the fields.
  const chosen = useRef(0);

  const canImport = Boolean(user?.permissions?.canCreateServices);
  if (!canImport) return null;

  const clearNaming = () => {
    setProposed(false);
    naming.setInitialValues(NO_NAMING);
    naming.reset();
  };

  const close = () => {
    if (progress !== null) return;
    chosen.current++;
    setOpened(false);
    setFile(null);
    clearNaming();
    setReading(false);
    setError(null);
  };

  const choose = async (next: File | null) => {
    const turn = ++chosen.current;
    setFile(next);
    clearNaming();
    if (!next || !next.name.toLowerCase().endsWith(IMPORT_EXTENSION)) {
      setError(next ? M.invalidCatalogFile : null);
      return;
    }
    setError(null);
    setReading(true);
    try {
      const preview = await previewCatalog(next);
      if (turn !== chosen.current) return;
      // The proposal is where editing starts: only what the person changes in it is theirs to lose.
      const proposal = { name: preview.proposed_name, slug: preview.proposed_slug };
      naming.setInitialValues(proposal);
      naming.setValues(proposal);
      setProposed(true);
    } catch (err) {
      if (turn === chosen.current) setError(messageOf(err, M.failedImportService));
    } finally {
      if (turn === chosen.current) setReading(false);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file || !file.name.toLowerCase().endsWith(IMPORT_EXTENSION)) return setError(M.invalidCatalogFile);
    if (proposed && naming.validate().hasErrors) return;
    setError(null);
    setProgress(0);
    try {
      // Without a preview (the file could not be read), the server's own answer says why.
      const { name, slug } = naming.getValues();
      const service = await uploadCatalog(file, setProgress, proposed ? { name: name.trim(), slug } : {});
      await client.invalidateQueries({ queryKey: serviceKeys.all });
      // Nothing is left unsaved before the new service opens.
      flushSync(() => {
        setProgress(null);
        setOpened(false);
        setFile(null);
        clearNaming();
      });
      notifySuccess(DONE.serviceImported);
      navigate(`/catalog/${service.id}`);
    } catch (err) {
      setProgress(null);
      const field = fieldOf(err);
      if (field) naming.setFieldError(field, messageOf(err));
      else setError(messageOf(err, M.failedImportService));
    }
  };

  return (
    <>
      <Button variant="default" onClick={() => setOpened(true)}>
        Import
      </Button>
      <CatalogModal opened={opened} onClose={close} title="Import Service" dirty={proposed && naming.isDirty()}>
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
            {proposed ? (
              <>
                <TextInput label="Name" required {...naming.getInputProps('name')} />
                <ServiceSlugInput {...naming.getInputProps('slug')} />
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
              <ModalCancelButton disabled={progress !== null} />
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
