import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../http/public.decorator.js';
import { MetricsService } from './metrics.service.js';

/** `GET /metrics`: Prometheus text format, no authentication (spec section 11). */
@Public()
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  async scrape(@Res({ passthrough: true }) response: FastifyReply): Promise<string> {
    const text = await this.metrics.scrape();
    response.header('Content-Type', this.metrics.registry.contentType);
    return text;
  }
}
