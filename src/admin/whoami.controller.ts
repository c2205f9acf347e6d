import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { API_TAGS } from '../docs/api-tags.js';
import { ApiProblems } from '../http/api-problems.decorator.js';
import { AnyToken, RequestPrincipal, type Principal } from '../http/principal.js';
import { WhoamiDto } from './dto/whoami.dto.js';

@ApiTags(API_TAGS.admin.name)
@ApiBearerAuth()
@Controller('v1/whoami')
export class WhoamiController {
  /** Who the bearer token is (any valid token): the console asks before it shows anything. */
  @Get()
  @ApiOperation({
    summary: 'Who the token is',
    description:
      'Any valid token: `{kind: "admin", session_id: null}` for the admin token, `{kind: "session", session_id}` for a session\'s token.',
  })
  @AnyToken()
  @ApiOkResponse({
    type: WhoamiDto,
    examples: {
      admin: { summary: 'The admin token', value: { kind: 'admin', session_id: null } },
      session: { summary: 'A session token', value: { kind: 'session', session_id: '0192f3a4-5b6c-7d8e-9f01-23456789abcd' } },
    },
  })
  @ApiProblems('unauthorized')
  whoami(@RequestPrincipal() principal: Principal): WhoamiDto {
    return WhoamiDto.from(principal);
  }
}
