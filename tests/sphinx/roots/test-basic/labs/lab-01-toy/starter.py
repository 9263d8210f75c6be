print('starter')
