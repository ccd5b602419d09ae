"""One module per resource, each an APIRouter mounted under /v1."""
