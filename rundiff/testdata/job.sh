#!/bin/sh
jobtrace exec setup -- sleep 0.3
jobtrace exec compile -- sh -c 'i=0; while [ $i -lt 1500000 ]; do i=$((i+1)); done'
jobtrace exec test -- sleep 0.5
