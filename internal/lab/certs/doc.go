// Package certs makes throwaway TLS certificates: a certificate authority
// that lives as long as a lab, and server certificates it signs, so that
// lab servers can be reached with sslmode=verify-full. Nothing here is for
// production keys: the keys are written unencrypted next to the data.
package certs
