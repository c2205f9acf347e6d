import { SetMetadata } from '@nestjs/common';

export const PUBLIC_ROUTE = 'pn:public-route';

/** The route needs no bearer token (health check). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_ROUTE, true);
