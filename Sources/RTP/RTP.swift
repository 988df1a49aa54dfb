// RTP: see docs/ARCHITECTURE.md
