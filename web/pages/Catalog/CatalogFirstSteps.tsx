import { Anchor, Button, Group, Paper, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { CatalogPermissions } from '../../api/catalog';
import type { Service } from '../../api/services';
import { useHasSnapshot } from '../../api/settings';

interface Props {
  service: Service;
  categoryCount: number;
  aspectCount: number;
  permissions: CatalogPermissions;
  onAddCategory: () => void;
  onAddAspect: () => void;
  onTakeSnapshot: () => void;
}

/**
 * A catalog being filled says what comes next, with the action one click away, to those who may
 * take it (docs/decisions/0157): a category first, then an aspect, then a first snapshot. The
 * specification's empty texts stay where they are; this is said beside them.
 */
export function CatalogFirstSteps({ service, categoryCount, aspectCount, permissions, onAddCategory, onAddAspect, onTakeSnapshot }: Props) {
  const live = !service.archived;
  const filled = categoryCount > 0 && aspectCount > 0;
  // Asked only when it decides something: a filled catalog, for those who may take snapshots.
  const hasSnapshot = useHasSnapshot(service.id, filled && live && permissions.canManageSettings);
  // An archived service is read-only for everyone: it has no next step.
  if (!live) return null;

  let step: { text: string; action?: ReactNode } | null = null;
  if (categoryCount === 0) {
    step = permissions.canEdit
      ? {
          text: 'Start with a category: it groups the aspects this service offers.',
          action: <Button onClick={onAddCategory}>Add a category</Button>,
        }
      : { text: 'The categories and aspects of this service appear here once an editor adds them.' };
  } else if (aspectCount === 0) {
    if (permissions.canEdit)
      step = {
        text: 'Next, add an aspect: one thing this service offers, then what it offers in each quarter.',
        action: <Button onClick={onAddAspect}>Add an aspect</Button>,
      };
  } else if (hasSnapshot === false) {
    step = {
      text: 'The catalog has its first aspects. Take a snapshot to keep this edition: later ones are compared with it, and a public snapshot is what a published service shows.',
      action: (
        <Group gap="sm">
          <Button onClick={onTakeSnapshot}>Take a snapshot</Button>
          {permissions.canAdmin && !service.published ? (
            <Anchor component={Link} to={`/catalog/${service.id}/settings`} size="sm">
              Publish on a public page
            </Anchor>
          ) : null}
        </Group>
      ),
    };
  }
  if (!step) return null;
  return (
    <Paper withBorder p="md" component="section" aria-label="Next step" data-testid="catalog-first-steps" className="print-hidden">
      <Group justify="space-between" gap="sm" wrap="wrap">
        <Text size="sm" style={{ flex: '1 1 20rem' }}>
          {step.text}
        </Text>
        {step.action ?? null}
      </Group>
    </Paper>
  );
}
