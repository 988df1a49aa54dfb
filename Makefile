# Parley: the two commands a fresh Debian machine needs are `make demo` and `make test`.
SWIFT ?= swift
FUZZ_TARGETS = http websocket jwt stun sdp rtp rtcp srtp red telephone-event wav audio-receive twiml form signaling insights vp8 dcep media-offer video-rest recording y4m ivf sip sip-digest sdes sip-info ffmpeg-progress
.PHONY: deps build test demo demo-rooms bench fuzz clean

deps:
	@./scripts/install-deps

build: deps
	$(SWIFT) build

# Declared target dependencies checked against the imports (scripts/check-deps), every saved fuzz
# crash and seed replayed through its parser, then the unit, interop and server
# tests (real peers: curl, openssl, Python twilio/plivo/PyJWT/websockets/aiortc, Chromium, coturn).
# scripts/test runs the untagged suites in two processes at once, then the suites tagged .interop
# or .process (they start real programs, timing-sensitive on a 2-core machine) one at a time, alone.
test: deps
	./scripts/check-deps
	$(SWIFT) build --build-tests
	@for t in $(FUZZ_TARGETS); do \
	  .build/debug/parley-fuzz replay $$t fuzz/regressions/$$t fuzz/corpus/$$t || exit 1; \
	done
	./scripts/test

# A call from alice to bob through parley-server on loopback (`parley demo`): speech, DTMF, mute,
# hold, the call's figures, bob's recording and its PESQ-WB score.
demo: deps
	./scripts/demo

# Three video SDK participants in one room through parley-server on loopback (`parley demo rooms`):
# the room's events, join and first-frame times, frames decoded, CPU, and a mosaic PNG of what
# carol saw (.demo-rooms/carol-mosaic.png).
demo-rooms: deps
	$(SWIFT) build -c release --product parley >&2
	"$$($(SWIFT) build -c release --show-bin-path)/parley" demo rooms --out .demo-rooms

bench: deps
	$(SWIFT) run -c release parley-bench all

# make fuzz TARGET=http SECONDS=600
fuzz: deps
	./scripts/fuzz $(TARGET) $(SECONDS)

clean:
	rm -rf .build
