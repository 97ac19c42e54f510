"""Generated from Protos/ by scripts/generate-protos; do not edit."""
