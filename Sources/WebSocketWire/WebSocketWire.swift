// WebSocketWire: see docs/ARCHITECTURE.md
