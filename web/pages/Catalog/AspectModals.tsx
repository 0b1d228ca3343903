import { Button, Checkbox, Group, Loader, Select, Stack, Text, TextInput } from '@mantine/core';
import { CatalogModal } from '../../components/CatalogModal';
import { lazy, Suspense, useEffect, useState, type Dispatch, type FormEvent, type SetStateAction } from 'react';
import { M } from '../../../common/messages';
import { htmlToText } from '../../../common/richText';
import { useCreateAspect, useDeleteAspect, useUpdateAspect, type Aspect, type Category } from '../../api/catalog';
import { ChangedNotice } from './ChangedNotice';
import { ErrorBox } from './ErrorBox';
import { InlineConfirm } from './InlineConfirm';
import { useModalAction } from './useModalAction';

const RichTextEditor = lazy(() => import('../../components/RichTextEditor'));

const PUBLIC_LABEL = 'Public (visible in public snapshots)';

interface AspectForm {
  title: string;
  description: string;
  isPublic: boolean;
}

interface FieldsProps {
  form: AspectForm;
  setForm: Dispatch<SetStateAction<AspectForm>>;
  titleError: string | null;
}

function AspectFields({ form, setForm, titleError }: FieldsProps) {
  return (
    <>
      <TextInput
        label="Title"
        required
        value={form.title}
        onChange={(e) => {
          const title = e.currentTarget.value;
          setForm((f) => ({ ...f, title }));
        }}
        error={titleError}
        data-autofocus
      />
      <Suspense fallback={<Loader size="sm" aria-label="Loading editor" />}>
        <RichTextEditor label="Description" value={form.description} onChange={(description) => setForm((f) => ({ ...f, description }))} />
      </Suspense>
      <Checkbox
        label={PUBLIC_LABEL}
        checked={form.isPublic}
        onChange={(e) => {
          const isPublic = e.currentTarget.checked;
          setForm((f) => ({ ...f, isPublic }));
        }}
      />
    </>
  );
}

interface CreateProps {
  serviceId: string;
  categories: Category[];
  /** Open with this category chosen ('' for none yet); null: closed. */
  initialCategoryId: string | null;
  onClose: () => void;
}

/** Mounted afresh each time the modal opens, so every opening starts from an empty form. */
function CreateAspectForm({ serviceId, categories, initialCategoryId, onClose }: CreateProps) {
  const [categoryId, setCategoryId] = useState<string | null>(initialCategoryId || null);
  const [form, setForm] = useState<AspectForm>({ title: '', description: '', isPublic: false });
  const [errors, setErrors] = useState<{ category?: string; title?: string }>({});
  const { error, setError, run } = useModalAction(onClose);
  const create = useCreateAspect(serviceId);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const next: typeof errors = {};
    if (!categoryId) next.category = M.aspectCategoryRequired;
    if (!form.title.trim()) next.title = M.aspectTitleRequired;
    setErrors(next);
    if (!categoryId || next.title) return;
    await run(() => create.mutateAsync({ categoryId, title: form.title.trim(), description: form.description, isPublic: form.isPublic }), M.failedCreateAspect);
  };

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorBox error={error} />
        <Select
          label="Category"
          required
          placeholder="Choose a category"
          data={categories.map((c) => ({ value: c.id, label: c.name }))}
          value={categoryId}
          onChange={setCategoryId}
          error={errors.category}
          allowDeselect={false}
        />
        <AspectFields form={form} setForm={setForm} titleError={errors.title ?? null} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending}>
            Create Aspect
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function CreateAspectModal(props: CreateProps) {
  return (
    <CatalogModal opened={props.initialCategoryId !== null} onClose={props.onClose} title="Create Aspect" size="lg">
      <CreateAspectForm {...props} />
    </CatalogModal>
  );
}

interface EditProps {
  serviceId: string;
  aspect: Aspect;
  /** The aspect as the catalog reads it now (undefined when it is gone). */
  latest: Aspect | undefined;
  categories: Category[];
  onClose: () => void;
}

const formOf = (aspect: Aspect): AspectForm => ({ title: aspect.title, description: aspect.description, isPublic: aspect.is_public });
const sameForm = (a: AspectForm, b: AspectForm) => a.title === b.title && a.description === b.description && a.isPublic === b.isPublic;

function EditAspectForm({ serviceId, aspect, latest, categories, onClose }: EditProps) {
  const [form, setForm] = useState<AspectForm>(() => formOf(aspect));
  // The stored aspect this edit is based on: its version is the one the save sends.
  const [basis, setBasis] = useState(aspect);
  const [categoryId, setCategoryId] = useState<string>(aspect.category_id);
  const [titleError, setTitleError] = useState<string | null>(null);
  const { error, setError, run } = useModalAction(onClose);
  const [confirming, setConfirming] = useState(false);
  const update = useUpdateAspect(serviceId);
  const remove = useDeleteAspect(serviceId);

  // A new version that changed nothing shown here (a move, a reorder) becomes the basis silently.
  useEffect(() => {
    if (latest && latest.version !== basis.version && sameForm(formOf(latest), formOf(basis))) setBasis(latest);
  }, [latest, basis]);
  // A colleague saved this aspect while the editor was open: what is typed stays, and the person chooses.
  const changed = latest !== undefined && !sameForm(formOf(latest), formOf(basis)) && !sameForm(formOf(latest), form);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (!form.title.trim()) return setTitleError(M.aspectTitleRequired);
    setTitleError(null);
    await run(
      () =>
        update.mutateAsync({
          id: aspect.id,
          title: form.title.trim(),
          description: form.description,
          isPublic: form.isPublic,
          // Typed exactly what is stored now: nothing of anyone's is overwritten.
          version: latest && sameForm(formOf(latest), form) ? latest.version : basis.version,
          // Sent only when it changes: the server then moves the aspect to the end of that category.
          ...(categoryId !== aspect.category_id ? { categoryId } : {}),
        }),
      M.failedUpdateAspect,
    );
  };

  const confirmDelete = () => run(() => remove.mutateAsync(aspect.id), M.failedDeleteAspect, () => setConfirming(false));

  if (confirming) {
    return (
      <InlineConfirm
        message={`Delete the aspect "${aspect.title}" and its availabilities?`}
        confirmLabel="Delete Aspect"
        busy={remove.isPending}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setConfirming(false)}
      />
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack gap="md">
        <ErrorBox error={error} />
        <Select
          label="Category"
          required
          data={categories.map((c) => ({ value: c.id, label: c.name }))}
          value={categoryId}
          onChange={(value) => value && setCategoryId(value)}
          allowDeselect={false}
        />
        {changed && latest ? (
          <ChangedNotice
            onUseTheirs={() => {
              setForm(formOf(latest));
              setBasis(latest);
            }}
            onKeepMine={() => setBasis(latest)}
          >
            <Text size="sm">
              Their title: <strong data-testid="their-version">{latest.title}</strong>
            </Text>
            {latest.description !== basis.description ? (
              <Text size="sm" lineClamp={3}>
                Their description: {htmlToText(latest.description) || '-'}
              </Text>
            ) : null}
            {latest.is_public !== basis.is_public ? <Text size="sm">{latest.is_public ? 'They made it public.' : 'They made it private.'}</Text> : null}
          </ChangedNotice>
        ) : null}
        <AspectFields form={form} setForm={setForm} titleError={titleError} />
        <Group justify="space-between">
          <Button color="red.9" variant="outline" onClick={() => setConfirming(true)}>
            Delete Aspect
          </Button>
          <Group gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={update.isPending}>
              Save Changes
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}

export function EditAspectModal({ aspect, ...rest }: Omit<EditProps, 'aspect'> & { aspect: Aspect | null }) {
  return (
    <CatalogModal opened={aspect !== null} onClose={rest.onClose} title="Edit Aspect" size="lg">
      {aspect ? <EditAspectForm key={aspect.id} aspect={aspect} {...rest} /> : null}
    </CatalogModal>
  );
}
