import{runActionStep}from'../index.js';await runActionStep('snapshot')
