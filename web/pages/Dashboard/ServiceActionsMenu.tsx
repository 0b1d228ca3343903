import { ActionIcon, Menu } from '@mantine/core';
import type { ServicePermissions } from '../../../common/permissions';
import type { Service } from '../../api/services';

/**
 * What the admin actions do. Stable for the page's life, so that the memoised cards and rows are
 * not rendered again when anything else on the dashboard changes (a keystroke in the search).
 */
export interface ServiceActions {
  onArchive: (service: Service) => void;
  onUnarchive: (service: Service) => void;
  onHardDelete: (service: Service) => void;
}

/** The admin actions (the menu opens inside the main landmark) of one service: archive or unarchive; permanent delete of an archived service for super admins. */
export function ServiceActionsMenu({ service, permissions, actions }: { service: Service; permissions: ServicePermissions; actions: ServiceActions }) {
  if (!permissions.canAdmin) return null;
  return (
    <Menu position="bottom-end" withinPortal portalProps={{ target: '#main-content' }} withInitialFocusPlaceholder={false}>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" aria-label={`Actions for ${service.name}`} className="service-actions">
          <span aria-hidden="true">⋮</span>
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        {service.archived ? (
          <Menu.Item onClick={() => actions.onUnarchive(service)}>Unarchive</Menu.Item>
        ) : (
          <Menu.Item onClick={() => actions.onArchive(service)}>Archive</Menu.Item>
        )}
        {service.archived && permissions.canHardDelete ? (
          <Menu.Item color="red.9" onClick={() => actions.onHardDelete(service)}>
            Delete Permanently
          </Menu.Item>
        ) : null}
      </Menu.Dropdown>
    </Menu>
  );
}
