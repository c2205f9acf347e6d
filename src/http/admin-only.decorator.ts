import { SetMetadata } from '@nestjs/common';

export const ADMIN_ONLY_ROUTE = 'pn:admin-only-route';

/** Only the admin token opens the route; a session token gets 403 `forbidden`. */
export const AdminOnly = (): MethodDecorator & ClassDecorator => SetMetadata(ADMIN_ONLY_ROUTE, true);
