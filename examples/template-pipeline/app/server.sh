#!/usr/bin/env bash
# The template's start command: a stand-in for a real service.
echo "${APP_GREETING:-hello}" > /tmp/greeting
touch /tmp/server-ready
exec sleep infinity
