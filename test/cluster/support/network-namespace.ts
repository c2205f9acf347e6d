import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';

const ip = (...args: string[]): string => execFileSync('ip', args, { stdio: 'pipe' }).toString();

/**
 * A network namespace of the test's own, joined to the host by a veth pair on a private /30:
 * the host side is {@link hostAddress}, the namespace side {@link innerAddress}. A process run
 * with {@link prefix} sees only that link (and its own loopback), so {@link cut} (the link
 * down) partitions it from the database, the other nodes and the clients at once,
 * and {@link heal} brings it back. Names are unique per run; nothing else on the host is touched.
 */
export class NetworkNamespace {
  private constructor(
    readonly name: string,
    private readonly hostLink: string,
    private readonly innerLink: string,
    readonly hostAddress: string,
    readonly innerAddress: string,
  ) {}

  /** Why namespaces cannot be made here, or undefined when they can (tried for real). */
  static unavailable(): string | undefined {
    if (process.getuid?.() !== 0) return 'not root (ip netns needs CAP_SYS_ADMIN)';
    const probe = `pnprobe${randomBytes(3).toString('hex')}`;
    try {
      ip('netns', 'add', probe);
    } catch (error) {
      return `ip netns add failed: ${(error as Error).message.split('\n')[0]}`;
    }
    try {
      ip('netns', 'del', probe);
    } catch {
      // Created but not removed: nothing more can be done here.
    }
    return undefined;
  }

  /** Creates the namespace and its link, on a /30 of 10.231.0.0/16 no local address is in. */
  static create(): NetworkNamespace {
    const id = randomBytes(3).toString('hex');
    const used = ip('-4', '-o', 'addr', 'show');
    let third: number;
    let base: number;
    do {
      third = randomInt(0, 256);
      base = randomInt(0, 64) * 4;
    } while (used.includes(`10.231.${third}.${base + 1}/`) || used.includes(`10.231.${third}.${base + 2}/`));
    const net = new NetworkNamespace(`pn-${id}`, `pn${id}h`, `pn${id}n`, `10.231.${third}.${base + 1}`, `10.231.${third}.${base + 2}`);
    const innerLink = net.innerLink;
    try {
      ip('netns', 'add', net.name);
      ip('link', 'add', net.hostLink, 'type', 'veth', 'peer', 'name', innerLink);
      ip('link', 'set', innerLink, 'netns', net.name);
      ip('addr', 'add', `${net.hostAddress}/30`, 'dev', net.hostLink);
      ip('link', 'set', net.hostLink, 'up');
      ip('-n', net.name, 'addr', 'add', `${net.innerAddress}/30`, 'dev', innerLink);
      ip('-n', net.name, 'link', 'set', innerLink, 'up');
      ip('-n', net.name, 'link', 'set', 'lo', 'up');
    } catch (error) {
      net.remove();
      throw error;
    }
    return net;
  }

  /** The CIDR of the link, for the database's pg_hba.conf. */
  get network(): string {
    return `${this.hostAddress}/30`;
  }

  /** Runs a command inside the namespace (see `ServerProcess.start`'s `prefix`). */
  get prefix(): readonly string[] {
    return ['ip', 'netns', 'exec', this.name];
  }

  /**
   * Takes the link down at the namespace's end: every packet to or from the namespace is lost
   * until {@link heal}. (Not the host's end: that would drop the host's route to the /30, and
   * packets for the namespace would leave by the default route, to whatever answers there.)
   */
  cut(): void {
    ip('-n', this.name, 'link', 'set', this.innerLink, 'down');
  }

  heal(): void {
    ip('-n', this.name, 'link', 'set', this.innerLink, 'up');
  }

  /** Deletes the namespace (and with it both ends of the link); never throws. */
  remove(): void {
    for (const args of [
      ['link', 'del', this.hostLink],
      ['netns', 'del', this.name],
    ]) {
      try {
        ip(...args);
      } catch {
        // Already gone (deleting one end of a veth pair deletes the other).
      }
    }
  }
}
