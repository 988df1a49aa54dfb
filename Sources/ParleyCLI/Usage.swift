/// `parley --help`.
let usage = """
USAGE: parley <command> [options]

Keys (stored in a SQLite file, mode 0600; --db PATH, default ./parley.db):
  parley keys create [--name NAME] [--db PATH]
      Create an API key under the default account (created on first use) and print the
      account SID, API key SID and secret. The secret is printed only here.
  parley keys list [--db PATH]
  parley keys revoke SK... [--db PATH]
  parley account [--show-auth-token] [--rotate-auth-token] [--db PATH]
      Print the default account SID and its Plivo-style auth ID (MA...); with --show-auth-token also its auth token (REST Basic auth
      with the account SID; webhook signatures). --rotate-auth-token replaces it and prints the new one.

Voice applications (the default account's, in the same --db file):
  parley apps create --name NAME --voice-url URL [--voice-method GET|POST] [--status-callback URL]
                     [--status-callback-method GET|POST] [--db PATH]
  parley apps list [--db PATH]
  parley apps delete AP... [--db PATH]

SIP endpoints (Plivo-style, the default account's, in the same --db file):
  parley endpoints create --username NAME [--password PW] [--alias ALIAS] [--app AP...] [--realm REALM] [--db PATH]
      Print the endpoint ID, the SIP username (NAME plus 12 digits) and the password (generated when
      not given; printed only here: the store keeps digest hashes for the realm, default "parley").
  parley endpoints list [--db PATH]
  parley endpoints delete ENDPOINT_ID [--db PATH]

Access tokens (HS256, Twilio format; printed to standard output):
  parley token voice --identity ID [--ttl SECONDS] [--outgoing-app AP...] [--param KEY=VALUE]...
                     [--incoming] [--push-credential CR...] [--endpoint-id ID] [--region REGION]
  parley token video --identity ID [--room NAME] [--no-publish] [--no-subscribe] [--no-data] [--ttl SECONDS] [--region REGION]
  parley token verify JWT [--leeway SECONDS]
      Print the claims as JSON and exit 0, or print the error (e.g. `20104 AccessTokenExpiredError: ...`)
      and exit 1.

Credentials for token commands, first match wins:
  --account-sid AC... --api-key SK... --api-secret SECRET
  PARLEY_ACCOUNT_SID, PARLEY_API_KEY, PARLEY_API_SECRET in the environment
  the first active key in --db (verify accepts any active key there)

Calls (the voice SDK as a softphone; --server URL or PARLEY_SERVER_URL; --token JWT, or --identity
NAME with a token minted from the credentials below):
  parley call TO [--param KEY=VALUE]... [--play IN.wav] [--record OUT.wav] [--digits "123#"]
                 [--duration SECONDS] [--connect-timeout SECONDS] [--app AP...]
                 [--ice-server URL]... [--ice-username NAME --ice-password SECRET] [--relay]
                 (--token JWT | --identity NAME) --server URL
      Call TO (a client identity, or what your application's TwiML routes), print the call's states,
      quality warnings and, however it ends, its figures. --duration (default 10) bounds the whole
      run, ringing included: a call not connected by then is canceled (exit 1), a connected one is
      hung up. --connect-timeout bounds only the wait for the answer.
  parley listen (--identity NAME | --token JWT) [--answer | --reject] [--play IN.wav] [--record OUT.wav]
                [--duration SECONDS] [--connect-timeout SECONDS]
                [--ice-server URL]... [--ice-username NAME --ice-password SECRET] [--relay] --server URL
      Wait for one incoming call (its custom parameters print as `param KEY=VALUE`), answer it
      (default) or reject it; stay until the call ends. --duration bounds the whole run, waiting
      included: with no call by then it exits 1. --connect-timeout bounds only the wait for a call.
  parley preflight (--identity NAME | --token JWT) [--duration SECONDS] --server URL
      The SDK's preflight test against the server's echo endpoint: timings, MOS, jitter, RTT, loss,
      the selected candidate pair, call quality, warnings.
  parley demo [--out DIR] [--http HOST:PORT] [--setup-calls N]
      What `make demo` runs: a server on loopback, alice calls bob (speech, DTMF, mute, hold), the
      call's figures, bob's recording scored with PESQ-WB (scripts/pesq-score and its .venv, looked
      for in the working directory and above it, then above this program), the setup time of N short calls.
  Media options: --ice-server stun:IP:PORT or turn:IP:PORT[?transport=udp] (repeatable; the TURN
      ones use --ice-username/--ice-password); --relay sends media only through the TURN server, so
      a `parley netsim` in front of it carries every packet (docs/voice.md, "Hearing your app under loss").
  SIGINT or SIGTERM ends the call first (cancels it while ringing, hangs up once connected, stops
  listening), prints its figures, then exits 130 or 143; a second signal exits at once.

SIP endpoint (the endpoint SDK: a standard SIP user agent against parley-server --sip or any SIP server):
  parley endpoint call DEST --registrar sip:HOST:PORT --username U --password P [--transport udp|tcp|tls]
                  [--reg-timeout S] [--header X-Name=value]... [--play IN.wav] [--record OUT.wav]
                  [--digits D] [--duration S] [--timeout S] [--local-address IP] [--debug]
      Log in (REGISTER with digest), call DEST (a SIP URI, user@host, a number or an identity at the
      registrar's domain) with the X- headers, press --digits once answered, stay --duration (10 s),
      hang up, log out. --timeout (30 s) bounds login and the wait for the answer.
  parley endpoint answer --registrar sip:HOST:PORT --username U --password P [--reject] [--play IN.wav]
                  [--record OUT.wav] [--duration S] [--timeout S]
      Log in and wait --timeout for a call; answer it (or --reject it) and stay until it ends or for
      --duration; log out. States and received keys print as they happen. Exit 0 after a call that
      connected and ended normally, 1 when login or the call failed (reason and code printed), 2 for
      usage errors; SIGINT/SIGTERM hang up and log out first, then exit 130/143.

Rooms (the video SDK as a participant; --server URL or PARLEY_SERVER_URL; --token JWT, or --identity
NAME with a token for the room minted from the credentials above):
  parley room join NAME (--token JWT | --identity NAME) [--audio IN.wav | --tone HZ]
                   [--video testsrc|camera[:N]|/dev/videoN|IN.y4m|IN.ivf] [--video-size WxH] [--fps N]
                   [--record-dir DIR] [--snapshot-every SECONDS] [--send-data TEXT] [--duration SECONDS]
                   [--connect-timeout SECONDS] --server URL
      Join room NAME (a group room is created if none by that name is in progress), publish what
      is given (a looped WAV file or a tone; a test pattern, 640x360 at 30 fps unless --video-size
      and --fps say otherwise; a camera, the first or the Nth of `parley room devices` or a V4L2
      node, asked for that size and rate (the driver may pick the nearest it has); or a looped Y4M
      or VP8 IVF file; a data track sending TEXT a second after connecting and again for each
      newcomer) and print the room's events, one line each: connected,
      participants, tracks published and subscribed, dominant speaker, network quality, recording,
      data received, disconnected. With --record-dir each remote track is written there as
      <identity>-<track>.wav (16-bit PCM, mono, 48 kHz) or .y4m (decoded frames), and
      --snapshot-every writes each video track's latest frame as <identity>-<track>-NNNN.png.
      --duration counts from the connection (default: until SIGINT or the room ends);
      --connect-timeout (default 30) bounds the wait to connect. Exit 0 after a normal end, 1 on
      a failure (its error code printed), 2 on a usage error, 130/143 after SIGINT/SIGTERM (the
      room is left first).
  parley room devices
      The cameras `--video camera:N` picks from (V4L2 capture nodes on Linux, AVFoundation's on
      macOS), numbered from 0, with the pixel formats and sizes each offers; Parley converts YUYV,
      NV12, I420 and YV12 (not MJPEG).
  parley demo rooms [--out DIR] [--seconds N]
      What `make demo-rooms` runs: a server on loopback, alice, bob and carol in one group room,
      each publishing a tone and a moving test pattern for N seconds (default 8); the room's
      events, join and first-frame times, frames decoded, the process's CPU, and a mosaic PNG of
      what carol saw (DIR, default .demo-rooms, /carol-mosaic.png).

Network simulation (a UDP relay, NAT-like: each client gets its own socket toward the target and
its own simulated path; both directions alike):
  parley netsim --listen HOST:PORT --forward HOST:PORT [--loss PERCENT [--burst PACKETS]]
                [--delay-ms MS] [--jitter-ms MS] [--allow-reordering] [--reorder PERCENT]
                [--reorder-delay-ms MS] [--duplicate PERCENT] [--rate-kbps KBPS] [--queue PACKETS] [--seed N]
                [--outage-at SECONDS]... [--outage-for SECONDS]... [--rate-at SECONDS:KBPS]...
      Runs until SIGINT or SIGTERM, then prints its statistics, in total and per client. --burst
      makes loss bursty (Gilbert-Elliott) with that mean burst length. --jitter-ms is peak-to-peak:
      each packet waits an extra delay uniform in [0, jitter]; packets keep their order unless
      --allow-reordering. --reorder holds that percent of packets back by --reorder-delay-ms
      (default 30). Each client source address (up to 64; more are dropped, idle ones forgotten
      after 60 s) has its own outbound socket and its own conditioners, seeded from --seed and the
      order clients first spoke, so a server behind it sees, and answers, each call leg apart:
      `parley-server --media 127.0.0.2:40000 --media-advertise 127.0.0.1` behind
      `parley netsim --listen 127.0.0.1:40000 --forward 127.0.0.2:40000` puts every leg's media
      through the simulated network. --outage-at S --outage-for D drops everything both ways from
      S to S+D seconds after the start (repeat --outage-at for several; --outage-for once for all
      or once each); a line on stdout marks each outage's start and end. --rate-at S:K sets the rate
      limit of both directions to K kbit/s at S seconds (0 lifts it), with a line on stdout.

Identities are 1 to 121 characters: letters, digits and underscore. --ttl is at most 86400.
Exit status: 0 success, 1 failure, 2 usage error, 128 + N after ending the calls on signal N (130 SIGINT, 143 SIGTERM).
"""
