"""Generated from Protos/ by scripts/generate-protos; do not edit."""
from google.protobuf import descriptor_pool as _descriptor_pool

# The descriptor pool of salus' generated messages, apart from protobuf's default pool.
POOL = _descriptor_pool.DescriptorPool()
