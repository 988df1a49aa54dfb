// SDP: see docs/ARCHITECTURE.md
