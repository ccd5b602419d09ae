# The worldstate API and curator image (compose.yaml runs it beside neo4j:5.26-community).
# Neo4j is reached over NEO4J_URI, so the image needs no Java.
# The light image (default): the embedder runs all-MiniLM-L6-v2 on ONNX Runtime, no torch.
# For other embedding models (WORLDSTATE_EMBEDDER=torch), build with the torch extra:
#   docker build --build-arg EXTRAS='[torch]' .     (about 4 GB larger)
FROM python:3.11-slim

ARG EXTRAS=""

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md ./
COPY graph ./graph
COPY committer ./committer
COPY curator ./curator
COPY api ./api
RUN pip install ".${EXTRAS}" \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin worldstate

USER worldstate
EXPOSE 8000
CMD ["worldstate", "serve", "--host", "0.0.0.0", "--port", "8000"]
