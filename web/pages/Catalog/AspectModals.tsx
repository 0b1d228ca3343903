import { Button, Checkbox, Group, Loader, Select, Text, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { CatalogModal, ModalCancelButton, useModalDirty } from '../../components/CatalogModal';
import { lazy, Suspense, useEffect, useState } from 'react';
import { M } from '../../../common/messages';
import { htmlToText } from '../../../common/richText';
import { createAspectSchema, updateAspectSchema } from '../../../common/schemas/catalog';
import { useSchemaForm } from '../../lib/schemaForm';
import { DONE, notifySuccess } from '../../lib/notify';
import { useCreateAspect, useDeleteAspect, useUpdateAspect, type Aspect, type Category } from '../../api/catalog';
import { ChangedNotice } from '../../components/ChangedNotice';
import { CatalogForm, EditActions, useDeleteStep } from './CatalogForm';
import { useModalAction } from './useModalAction';

const loadEditor = () => import('../../components/RichTextEditor');
const RichTextEditor = lazy(loadEditor);

/** The editor's code is fetched while the catalog is read, so it is there before Tab reaches it. */
function usePreloadedEditor() {
  useEffect(() => {
    void loadEditor();
  }, []);
}

const PUBLIC_LABEL = 'Public (visible in public snapshots)';

type AspectForm = {
  title: string;
  description: string;
  isPublic: boolean;
  /** null until one is chosen. */
  categoryId: string | null;
};

// The fields as the create and update requests check them; the service and the version are not typed.
const newAspectSchema = createAspectSchema.pick({ categoryId: true, title: true, description: true, isPublic: true });
const editAspectSchema = updateAspectSchema.pick({ categoryId: true, title: true, description: true, isPublic: true });

function AspectFields({ form }: { form: UseFormReturnType<AspectForm> }) {
  return (
    <>
      <TextInput label="Title" required {...form.getInputProps('title')} data-autofocus />
      <Suspense fallback={<Loader size="sm" aria-label="Loading editor" />}>
        <RichTextEditor label="Description" value={form.values.description} onChange={(description) => form.setFieldValue('description', description)} />
      </Suspense>
      <Checkbox label={PUBLIC_LABEL} {...form.getInputProps('isPublic', { type: 'checkbox' })} />
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
  const form = useSchemaForm<AspectForm>(newAspectSchema, { categoryId: initialCategoryId || null, title: '', description: '', isPublic: false });
  useModalDirty(form.isDirty());
  const { error, setError, run } = useModalAction(onClose);
  const create = useCreateAspect(serviceId);

  const submit = async ({ categoryId, title, description, isPublic }: AspectForm) => {
    if (!categoryId) return;
    await run(async () => {
      await create.mutateAsync({ categoryId, title: title.trim(), description, isPublic });
      form.reset();
      notifySuccess(DONE.aspectCreated);
    }, M.failedCreateAspect);
  };

  return (
    <CatalogForm form={form} onValid={submit} onError={() => setError(null)} error={error}>
      <Select
        label="Category"
        required
        placeholder="Choose a category"
        data={categories.map((c) => ({ value: c.id, label: c.name }))}
        {...form.getInputProps('categoryId')}
        allowDeselect={false}
      />
      <AspectFields form={form} />
      <Group justify="flex-end">
        <ModalCancelButton />
        <Button type="submit" loading={create.isPending}>
          Create Aspect
        </Button>
      </Group>
    </CatalogForm>
  );
}

export function CreateAspectModal(props: CreateProps) {
  usePreloadedEditor();
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

type Content = Omit<AspectForm, 'categoryId'>;
const formOf = (aspect: Aspect): Content => ({ title: aspect.title, description: aspect.description, isPublic: aspect.is_public });
const sameForm = (a: Content, b: Content) => a.title === b.title && a.description === b.description && a.isPublic === b.isPublic;

function EditAspectForm({ aspect, latest, categories, onClose }: EditProps) {
  const form = useSchemaForm<AspectForm>(editAspectSchema, { ...formOf(aspect), categoryId: aspect.category_id });
  // The stored aspect this edit is based on: its version is the one the save sends.
  const [basis, setBasis] = useState(aspect);
  const { categoryId } = form.values;
  // Unsaved: a move, or a text that is not the stored one it started from.
  useModalDirty(categoryId !== aspect.category_id || !sameForm(form.values, formOf(basis)));
  const { error, setError, run } = useModalAction(onClose);
  const update = useUpdateAspect();
  const remove = useDeleteAspect();

  // A new version that changed nothing shown here (a move, a reorder) becomes the basis silently.
  useEffect(() => {
    if (latest && latest.version !== basis.version && sameForm(formOf(latest), formOf(basis))) setBasis(latest);
  }, [latest, basis]);
  // A colleague saved this aspect while the editor was open: what is typed stays, and the person chooses.
  const changed = latest !== undefined && !sameForm(formOf(latest), formOf(basis)) && !sameForm(formOf(latest), form.values);

  const submit = async (values: AspectForm) => {
    await run(async () => {
      await update.mutateAsync({
        id: aspect.id,
        title: values.title.trim(),
        description: values.description,
        isPublic: values.isPublic,
        // Typed exactly what is stored now: nothing of anyone's is overwritten.
        version: latest && sameForm(formOf(latest), values) ? latest.version : basis.version,
        // Sent only when it changes: the server then moves the aspect to the end of that category.
        ...(values.categoryId && values.categoryId !== aspect.category_id ? { categoryId: values.categoryId } : {}),
      });
      form.resetDirty();
      notifySuccess(DONE.aspectSaved);
    }, M.failedUpdateAspect);
  };

  const deletion = useDeleteStep(run, {
    remove: () => remove.mutateAsync(aspect.id),
    busy: remove.isPending,
    done: DONE.aspectDeleted,
    fallback: M.failedDeleteAspect,
    message: `Delete the aspect "${aspect.title}" and its availabilities?`,
    confirmLabel: 'Delete Aspect',
  });
  if (deletion.view) return deletion.view;

  return (
    <CatalogForm form={form} onValid={submit} onError={() => setError(null)} error={error}>
      <Select
        label="Category"
        required
        data={categories.map((c) => ({ value: c.id, label: c.name }))}
        {...form.getInputProps('categoryId')}
        allowDeselect={false}
      />
      {changed && latest ? (
        <ChangedNotice
          onUseTheirs={() => {
            form.setValues(formOf(latest));
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
      <AspectFields form={form} />
      <EditActions deleteLabel="Delete Aspect" onDelete={deletion.ask} saving={update.isPending} />
    </CatalogForm>
  );
}

export function EditAspectModal({ aspect, ...rest }: Omit<EditProps, 'aspect'> & { aspect: Aspect | null }) {
  usePreloadedEditor();
  return (
    <CatalogModal opened={aspect !== null} onClose={rest.onClose} title="Edit Aspect" size="lg">
      {aspect ? <EditAspectForm key={aspect.id} aspect={aspect} {...rest} /> : null}
    </CatalogModal>
  );
}
