#!/bin/sh
# Makes the TEST-ONLY TLS material of the fake WhatsApp media host (test/support/wa-server/media-host.ts):
# a CA and a leaf certificate for IP 127.0.0.1, both valid for 100 years. The leaf key is committed on
# purpose: it protects nothing (the host listens on 127.0.0.1 in tests only). Test processes trust the
# CA through NODE_EXTRA_CA_CERTS (set in vitest.config.ts), never through product code.
# Run from anywhere: sh test/support/wa-server/tls/make-certs.sh
set -eu
cd "$(dirname "$0")"
DAYS=36500
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 -days "$DAYS" \
  -subj "/CN=Chatapp Desk TEST media CA (not for production)" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
  -keyout ca.key -out ca.crt
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -sha256 \
  -subj "/CN=127.0.0.1" -keyout media-host.key -out media-host.csr
cat > leaf.ext <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1
EXT
openssl x509 -req -in media-host.csr -CA ca.crt -CAkey ca.key -CAcreateserial -sha256 -days "$DAYS" \
  -extfile leaf.ext -out media-host.crt
openssl verify -CAfile ca.crt media-host.crt
# The CA key is discarded: nothing else can ever be issued under this CA.
rm -f media-host.csr leaf.ext ca.srl ca.key
