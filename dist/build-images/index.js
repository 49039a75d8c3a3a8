import{runActionStep}from'../index.js';await runActionStep('build-images')
